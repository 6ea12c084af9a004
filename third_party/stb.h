/* stb.h - what gpufilt uses from its configured stb build (stb.c): BMP
 * decoding through stb_image. */
#ifndef GF_STB_H
#define GF_STB_H

/* Decodes the BMP in buf (len bytes) at its own channel count (*comp, 3 or
 * 4) into a malloc'd buffer of *w x *h pixels; NULL on failure, with the
 * reason from gf_stb_failure(). An stb assertion that fails makes it return
 * NULL rather than abort. Thread-safe. */
unsigned char *gf_stb_load(const unsigned char *buf, int len, int *w, int *h, int *comp);

/* Why the calling thread's last gf_stb_load failed. */
const char *gf_stb_failure(void);

#endif
