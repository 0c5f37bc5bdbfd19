// C surface of libmicrohttpd used by MeterIO's HTTP daemon wrapper.
//
// The library is not linked: it is loaded (dlopen) the first time a daemon starts, so that a
// run that serves nothing neither maps it nor the TLS stack it pulls in (about 3 MB resident
// and 2.5 ms of start-up for every run). Its functions are called through the table below.
#pragma once
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

// Macros and macro-built constants that Swift does not import.
static const ssize_t CMicroHTTPD_CONTENT_READER_END_OF_STREAM = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t CMicroHTTPD_CONTENT_READER_END_WITH_ERROR = MHD_CONTENT_READER_END_WITH_ERROR;
static const enum MHD_Result CMicroHTTPD_YES = MHD_YES;
static const enum MHD_Result CMicroHTTPD_NO = MHD_NO;
static const enum MHD_ConnectionNotificationCode CMicroHTTPD_CONNECTION_NOTIFY_STARTED = MHD_CONNECTION_NOTIFY_STARTED;
static const unsigned int CMicroHTTPD_DAEMON_FLAGS =
    MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME;

// The library's functions this wrapper calls, looked up by name once it is loaded.
struct CMicroHTTPD_Functions {
    __typeof__(&MHD_start_daemon) start_daemon;
    __typeof__(&MHD_stop_daemon) stop_daemon;
    __typeof__(&MHD_get_connection_info) get_connection_info;
    __typeof__(&MHD_suspend_connection) suspend_connection;
    __typeof__(&MHD_resume_connection) resume_connection;
    __typeof__(&MHD_lookup_connection_value) lookup_connection_value;
    __typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
    __typeof__(&MHD_create_response_from_callback) create_response_from_callback;
    __typeof__(&MHD_add_response_header) add_response_header;
    __typeof__(&MHD_queue_response) queue_response;
    __typeof__(&MHD_destroy_response) destroy_response;
};

// The table and why loading failed (NULL: it did not), one per process: a function's static
// (a header's own statics are not emitted into the Swift module that imports it).
struct CMicroHTTPD_Library {
    struct CMicroHTTPD_Functions functions;
    const char *error;
};
static inline struct CMicroHTTPD_Library *CMicroHTTPD_library(void) {
    static struct CMicroHTTPD_Library library;
    return &library;
}
#define CMicroHTTPD_functions (CMicroHTTPD_library()->functions)

static inline void CMicroHTTPD_load_once(void) {
    struct CMicroHTTPD_Library *l = CMicroHTTPD_library();
    void *lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        l->error = dlerror();
        return;
    }
    struct CMicroHTTPD_Functions f;
#define CMicroHTTPD_FIND(name)                                           \
    if ((*(void **)&f.name = dlsym(lib, "MHD_" #name)) == NULL) {        \
        l->error = "libmicrohttpd has no MHD_" #name;                    \
        return;                                                          \
    }
    CMicroHTTPD_FIND(start_daemon)
    CMicroHTTPD_FIND(stop_daemon)
    CMicroHTTPD_FIND(get_connection_info)
    CMicroHTTPD_FIND(suspend_connection)
    CMicroHTTPD_FIND(resume_connection)
    CMicroHTTPD_FIND(lookup_connection_value)
    CMicroHTTPD_FIND(create_response_from_buffer)
    CMicroHTTPD_FIND(create_response_from_callback)
    CMicroHTTPD_FIND(add_response_header)
    CMicroHTTPD_FIND(queue_response)
    CMicroHTTPD_FIND(destroy_response)
#undef CMicroHTTPD_FIND
    l->functions = f;
}

// Loads the library (dlopen, then dlsym of each function), once per process whoever asks
// first; NULL when every function was found, otherwise why not. Before any other call here.
static inline const char *CMicroHTTPD_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CMicroHTTPD_load_once);
    return CMicroHTTPD_library()->error;
}

// MHD_start_daemon is variadic, which Swift cannot call: one fixed option list for a daemon on
// an already listening socket, with a per-connection notifier, a connection limit and an idle
// timeout in seconds.
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags, int listen_fd,
                                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                                   MHD_NotifyConnectionCallback notify, void *notify_cls,
                                                   unsigned int connection_limit, unsigned int timeout_seconds) {
    return CMicroHTTPD_functions.start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                                              MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                                              MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                                              MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                              MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                              MHD_OPTION_END);
}

// The other calls, one each, through the table.
static inline void CMicroHTTPD_stop(struct MHD_Daemon *d) { CMicroHTTPD_functions.stop_daemon(d); }
static inline void CMicroHTTPD_suspend(struct MHD_Connection *c) { CMicroHTTPD_functions.suspend_connection(c); }
static inline void CMicroHTTPD_resume(struct MHD_Connection *c) { CMicroHTTPD_functions.resume_connection(c); }
static inline const char *CMicroHTTPD_argument(struct MHD_Connection *c, const char *name) {
    return CMicroHTTPD_functions.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}
static inline struct MHD_Response *CMicroHTTPD_response_copying(size_t size, const void *bytes) {
    return CMicroHTTPD_functions.create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}
static inline struct MHD_Response *CMicroHTTPD_response_streamed(size_t block_size, MHD_ContentReaderCallback read,
                                                                 void *cls, MHD_ContentReaderFreeCallback done) {
    return CMicroHTTPD_functions.create_response_from_callback(MHD_SIZE_UNKNOWN, block_size, read, cls, done);
}
static inline enum MHD_Result CMicroHTTPD_add_header(struct MHD_Response *r, const char *name, const char *value) {
    return CMicroHTTPD_functions.add_response_header(r, name, value);
}
static inline enum MHD_Result CMicroHTTPD_queue(struct MHD_Connection *c, unsigned int status, struct MHD_Response *r) {
    return CMicroHTTPD_functions.queue_response(c, status, r);
}
static inline void CMicroHTTPD_destroy(struct MHD_Response *r) { CMicroHTTPD_functions.destroy_response(r); }

// The socket of a connection (MHD_get_connection_info returns a union pointer).
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info =
        CMicroHTTPD_functions.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}
