#include <uv.h>

// libuv's handle "subclasses" share a prefix; C casts them freely, Swift cannot.
static inline uv_handle_t *sotto_uv_handle(void *handle) { return (uv_handle_t *)handle; }
static inline uv_stream_t *sotto_uv_stream(uv_tcp_t *handle) { return (uv_stream_t *)handle; }
