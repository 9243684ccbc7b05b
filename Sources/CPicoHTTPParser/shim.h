// picohttpparser as built into Debian's libh2o (package libh2o-dev), which exports its symbols
// but ships no header for it. These are picohttpparser's own declarations (h2o 2.2.5 bundles
// the version with phr_decode_chunked_is_in_data).
#include <stddef.h>
#include <sys/types.h>

struct phr_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

// Returns the number of bytes consumed, -2 if the request is partial, -1 if it is malformed.
// A header with name == NULL is a continuation line (obsolete line folding).
int phr_parse_request(const char *buf, size_t len, const char **method, size_t *method_len, const char **path,
                      size_t *path_len, int *minor_version, struct phr_header *headers, size_t *num_headers,
                      size_t last_len);

// Zero-filled before use.
struct phr_chunked_decoder {
    size_t bytes_left_in_chunk;
    char consume_trailer;
    char _hex_count;
    char _state;
};

// Decodes chunked data in place: returns -2 when more is needed, -1 on malformed input, or the
// number of bytes left over after the last chunk (and trailers, if consume_trailer is set).
// *bufsz becomes the number of decoded bytes at the start of buf.
ssize_t phr_decode_chunked(struct phr_chunked_decoder *decoder, char *buf, size_t *bufsz);
int phr_decode_chunked_is_in_data(struct phr_chunked_decoder *decoder);
