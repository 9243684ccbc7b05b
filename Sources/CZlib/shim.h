// Debian's zlib (zlib1g-dev): the compression ratio of a transcript, as faster-whisper measures
// it with Python's zlib, decides whether a window is decoded again at a higher temperature.
#include <zlib.h>
