#include "CCurl.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>

int ccurl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1; }

static int stopped = 0;

void ccurl_stop_all(void) { __atomic_store_n(&stopped, 1, __ATOMIC_RELEASE); }

static int progress(void *user, curl_off_t total_down, curl_off_t now_down, curl_off_t total_up, curl_off_t now_up) {
    (void)user; (void)total_down; (void)now_down; (void)total_up; (void)now_up;
    return __atomic_load_n(&stopped, __ATOMIC_ACQUIRE); /* non-zero aborts the transfer */
}

void *ccurl_handle_new(void) { return curl_easy_init(); }

void ccurl_handle_free(void *handle) {
    if (handle) curl_easy_cleanup(handle);
}

void ccurl_response_free(ccurl_response *response) {
    free(response->body);
    response->body = NULL;
    response->body_length = response->body_capacity = 0;
}

static size_t write_body(char *data, size_t size, size_t count, void *user) {
    ccurl_response *response = user;
    size_t length = size * count;
    if ((long long)(response->body_length + length) > response->max_body) {
        response->too_large = 1;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    if (response->body_length + length > response->body_capacity) {
        size_t capacity = response->body_capacity ? response->body_capacity : 65536;
        while (capacity < response->body_length + length) capacity *= 2;
        unsigned char *grown = realloc(response->body, capacity);
        if (!grown) return 0;
        response->body = grown;
        response->body_capacity = capacity;
    }
    memcpy(response->body + response->body_length, data, length);
    response->body_length += length;
    return length;
}

/// Copies a header's value (trimmed) into `field` if `line` is that header.
static int take(const char *line, size_t length, const char *name, char *field, size_t capacity) {
    size_t name_length = strlen(name);
    if (length <= name_length + 1 || strncasecmp(line, name, name_length) != 0 || line[name_length] != ':') return 0;
    const char *value = line + name_length + 1;
    const char *end = line + length;
    while (value < end && (*value == ' ' || *value == '\t')) value++;
    while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    size_t value_length = (size_t)(end - value);
    if (value_length >= capacity) value_length = capacity - 1;
    memcpy(field, value, value_length);
    field[value_length] = 0;
    return 1;
}

static size_t read_header(char *data, size_t size, size_t count, void *user) {
    ccurl_response *response = user;
    size_t length = size * count;
    if (length >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after a 100 Continue): forget the last one's headers. */
        response->content_range[0] = response->location[0] = response->etag[0] = 0;
        response->last_modified[0] = response->content_type[0] = response->retry_after[0] = 0;
        response->content_length = -1;
        return length;
    }
    char number[32] = {0};
    if (take(data, length, "Content-Length", number, sizeof number)) {
        char *end = NULL;
        long long value = strtoll(number, &end, 10);
        response->content_length = (end && *end == 0 && value >= 0) ? value : -1;
        if (response->content_length > response->max_body) {
            response->too_large = 1;
            return 0; /* refused before any of the body is read */
        }
        return length;
    }
    take(data, length, "Content-Range", response->content_range, sizeof response->content_range)
        || take(data, length, "Location", response->location, sizeof response->location)
        || take(data, length, "ETag", response->etag, sizeof response->etag)
        || take(data, length, "Last-Modified", response->last_modified, sizeof response->last_modified)
        || take(data, length, "Content-Type", response->content_type, sizeof response->content_type)
        || take(data, length, "Retry-After", response->retry_after, sizeof response->retry_after);
    return length;
}

int ccurl_fetch(void *handle, const ccurl_request *request, ccurl_response *response) {
    CURL *curl = handle;
    memset(response, 0, sizeof *response);
    response->content_length = -1;
    response->max_body = request->max_body;
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    /* Slower than 1 KiB/s for the stall time is a stalled server (a trickle of bytes would otherwise hold a fetch forever). */
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, request->stall_seconds);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, request->insecure ? 0L : 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, request->insecure ? 0L : 2L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, response);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, read_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, response);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "vtrim");
    char range[64];
    if (request->first >= 0) {
        snprintf(range, sizeof range, "%lld-%lld", request->first, request->last);
        curl_easy_setopt(curl, CURLOPT_RANGE, range);
    }
    struct curl_slist *headers = curl_slist_append(NULL, "Accept-Encoding: identity");
    for (int index = 0; index < request->header_count; index++) headers = curl_slist_append(headers, request->headers[index]);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    curl_slist_free_all(headers);
    response->curl_code = (int)code;
    if (code != CURLE_OK) {
        snprintf(response->error, sizeof response->error, "%s", error[0] ? error : curl_easy_strerror(code));
    }
    return (int)code;
}
