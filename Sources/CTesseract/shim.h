// Tesseract's C API and Leptonica (which decodes PNG and JPEG from memory for it), from Debian's
// libtesseract-dev (which depends on libleptonica-dev).
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

// Leptonica's PIX is opaque to Swift through the C API's typedefs; these keep the casts here.
static inline struct Pix *ctesseract_pix(PIX *pix) { return (struct Pix *)pix; }
