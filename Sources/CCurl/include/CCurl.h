#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>

/// One GET through libcurl, with the options Swift cannot set (curl_easy_setopt is variadic). No redirects are
/// followed (vtrim follows them itself, by its own rules); only http and https; TLS verified unless `insecure`.
/// The body goes to a buffer the call allocates, never past `max_body` bytes.
typedef struct ccurl_request {
    const char *url;
    /// Bytes first..last of the resource (an HTTP Range), or first < 0 for the whole resource.
    long long first;
    long long last;
    /// "Name: value" lines.
    const char *const *headers;
    int header_count;
    /// More than this many body bytes (announced or received) ends the transfer: `too_large` is set.
    long long max_body;
    long connect_timeout_ms;
    /// A transfer slower than 1 KiB/s for this many seconds is abandoned (a stalled server).
    long stall_seconds;
    int insecure;
} ccurl_request;

typedef struct ccurl_response {
    long status;
    unsigned char *body;
    size_t body_length;
    size_t body_capacity;
    long long content_length;
    char content_range[128];
    char location[4096];
    char etag[256];
    char last_modified[128];
    char content_type[128];
    char retry_after[32];
    int too_large;
    int curl_code;
    char error[256];
    long long max_body;
} ccurl_response;

/// Once per process, before any thread fetches.
int ccurl_global_init(void);
/// A connection-keeping handle; one thread at a time.
void *ccurl_handle_new(void);
void ccurl_handle_free(void *handle);
/// 0 when a response (any status) arrived whole; otherwise libcurl's error code, with `error` set.
int ccurl_fetch(void *handle, const ccurl_request *request, ccurl_response *response);
void ccurl_response_free(ccurl_response *response);
/// Every transfer in progress, and every later one, stops at its next progress callback (an interrupt).
void ccurl_stop_all(void);

#endif
