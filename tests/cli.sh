#!/bin/sh
echo "cli tests: none yet"
