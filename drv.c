typedef unsigned char u8;
struct drv { u8 c; } drv;
