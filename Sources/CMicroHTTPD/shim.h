// C surface of libmicrohttpd used by MeterIO's HTTP daemon wrapper.
#pragma once
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

// MHD_start_daemon is variadic, which Swift cannot call: one fixed option list for a daemon on
// an already listening socket, with a per-connection notifier, a connection limit and an idle
// timeout in seconds.
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags, int listen_fd,
                                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                                   MHD_NotifyConnectionCallback notify, void *notify_cls,
                                                   unsigned int connection_limit, unsigned int timeout_seconds) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_END);
}

// The socket of a connection (MHD_get_connection_info returns a union pointer).
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}
