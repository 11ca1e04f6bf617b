/*
 * The main of an encoder whose options hold a struct rapidbin_enc_opts at
 * rb_offset (txt2rapidbin, txt2std), with --meta FILE: the id mapping as
 * Wasmgrind-style JSON.
 */
#ifndef TP_RB_META_H
#define TP_RB_META_H

#include <stddef.h>

int tp_rb_meta_main(const char *format, size_t rb_offset, int argc,
    char **argv);

#endif
