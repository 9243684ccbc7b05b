// GitHub's CommonMark library and its extensions (tables, strikethrough, autolinks, tag filter),
// from Debian's libcmark-gfm-dev and libcmark-gfm-extensions-dev.
#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>
