// FreeType (glyph rendering) and fontconfig (finding fonts, and a fallback font for characters the
// first one lacks), for the text vtrim draws on thumbnails.
#ifndef CFREETYPE_SHIM_H
#define CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H
#include <fontconfig/fontconfig.h>

// FT_LOAD_* are macros over `long` shifts, which Swift imports inconsistently.
static const int CFT_LOAD_RENDER = FT_LOAD_RENDER;
static const int CFT_LOAD_DEFAULT = FT_LOAD_DEFAULT;
#endif
