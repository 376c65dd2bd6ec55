/* LD_PRELOAD shim for the reference JVMs: a bind() to the wildcard address (0.0.0.0, ::) binds to loopback
 * instead (127.0.0.1, ::ffff:127.0.0.1). Java RocketMQ's proxy gRPC server (NettyServerBuilder.forPort) and the
 * broker's HA acceptor bind the wildcard with no setting to change it; every server of the reference must
 * listen on loopback only. Built by JavaCluster.start() into its directory. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    static bind_fn real;
    if (real == NULL) real = (bind_fn)dlsym(RTLD_NEXT, "bind");
    if (addr != NULL && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in in;
        memcpy(&in, addr, sizeof in);
        if (in.sin_addr.s_addr == htonl(INADDR_ANY)) {
            in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return real(fd, (const struct sockaddr *)&in, sizeof in);
        }
    } else if (addr != NULL && addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 in6;
        memcpy(&in6, addr, sizeof in6);
        if (IN6_IS_ADDR_UNSPECIFIED(&in6.sin6_addr)) {
            memset(&in6.sin6_addr, 0, sizeof in6.sin6_addr); /* ::ffff:127.0.0.1 */
            in6.sin6_addr.s6_addr[10] = 0xff;
            in6.sin6_addr.s6_addr[11] = 0xff;
            in6.sin6_addr.s6_addr[12] = 127;
            in6.sin6_addr.s6_addr[15] = 1;
            return real(fd, (const struct sockaddr *)&in6, sizeof in6);
        }
    }
    return real(fd, addr, len);
}
