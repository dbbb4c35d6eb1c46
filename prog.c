#include "vmlinux.h"
int f(struct drv *d) { return d->c; }
