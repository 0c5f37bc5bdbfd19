// C surface of libmicrohttpd used by MeterIO's HTTP daemon wrapper.
//
// The library is not linked: the wrapper loads it (dlopen) the first time a daemon starts, so
// that a run that serves nothing neither maps it nor the TLS stack it pulls in (about 3 MB
// resident and 2.5 ms of start-up for every run), and calls its functions through pointers it
// looked up (dlsym). Nothing here holds state: a static in a header is one per compiled unit.
#pragma once
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

// Macros and macro-built constants that Swift does not import.
static const uint64_t CMicroHTTPD_SIZE_UNKNOWN = MHD_SIZE_UNKNOWN;
static const ssize_t CMicroHTTPD_CONTENT_READER_END_OF_STREAM = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t CMicroHTTPD_CONTENT_READER_END_WITH_ERROR = MHD_CONTENT_READER_END_WITH_ERROR;
static const enum MHD_Result CMicroHTTPD_YES = MHD_YES;
static const enum MHD_Result CMicroHTTPD_NO = MHD_NO;
static const enum MHD_ValueKind CMicroHTTPD_GET_ARGUMENT_KIND = MHD_GET_ARGUMENT_KIND;
static const enum MHD_ResponseMemoryMode CMicroHTTPD_RESPMEM_MUST_COPY = MHD_RESPMEM_MUST_COPY;
static const enum MHD_ConnectionNotificationCode CMicroHTTPD_CONNECTION_NOTIFY_STARTED = MHD_CONNECTION_NOTIFY_STARTED;
static const unsigned int CMicroHTTPD_DAEMON_FLAGS =
    MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME;

// The types of the functions the wrapper calls directly (the variadic ones go through the
// two helpers below, which Swift can call).
typedef __typeof__(&MHD_stop_daemon) CMicroHTTPD_stop_daemon_function;
typedef __typeof__(&MHD_suspend_connection) CMicroHTTPD_suspend_connection_function;
typedef __typeof__(&MHD_resume_connection) CMicroHTTPD_resume_connection_function;
typedef __typeof__(&MHD_lookup_connection_value) CMicroHTTPD_lookup_connection_value_function;
typedef __typeof__(&MHD_create_response_from_buffer) CMicroHTTPD_create_response_from_buffer_function;
typedef __typeof__(&MHD_create_response_from_callback) CMicroHTTPD_create_response_from_callback_function;
typedef __typeof__(&MHD_add_response_header) CMicroHTTPD_add_response_header_function;
typedef __typeof__(&MHD_queue_response) CMicroHTTPD_queue_response_function;
typedef __typeof__(&MHD_destroy_response) CMicroHTTPD_destroy_response_function;

// MHD_start_daemon (at `start_daemon`) is variadic, which Swift cannot call: one fixed option
// list for a daemon on an already listening socket, with a per-connection notifier, a
// connection limit, a limit per client address and a timeout in seconds for a connection
// that sends or takes nothing.
static inline struct MHD_Daemon *CMicroHTTPD_start(void *start_daemon, unsigned int flags, int listen_fd,
                                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                                   MHD_NotifyConnectionCallback notify, void *notify_cls,
                                                   unsigned int connection_limit, unsigned int per_address_limit,
                                                   unsigned int timeout_seconds) {
    __typeof__(&MHD_start_daemon) start = (__typeof__(&MHD_start_daemon))start_daemon;
    return start(flags, 0, NULL, NULL, handler, handler_cls,
                 MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                 MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                 MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                 MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                 MHD_OPTION_END);
}

// One connection's own timeout (MHD_set_connection_option, at `set_connection_option`, is
// variadic): seconds it may send or take nothing before it is closed.
static inline enum MHD_Result CMicroHTTPD_set_timeout(void *set_connection_option, struct MHD_Connection *c,
                                                      unsigned int timeout_seconds) {
    __typeof__(&MHD_set_connection_option) set = (__typeof__(&MHD_set_connection_option))set_connection_option;
    return set(c, MHD_CONNECTION_OPTION_TIMEOUT, timeout_seconds);
}

// The socket of a connection (MHD_get_connection_info, at `get_connection_info`, is variadic
// and returns a union pointer).
static inline int CMicroHTTPD_connection_fd(void *get_connection_info, struct MHD_Connection *c) {
    __typeof__(&MHD_get_connection_info) get = (__typeof__(&MHD_get_connection_info))get_connection_info;
    const union MHD_ConnectionInfo *info = get(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}
