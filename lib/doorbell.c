/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/doorbell.h"

#define RING_LEN 16 /* cookie, generation, index: big-endian */

struct doorbell {
    int fd;
    uint64_t cookie;
    struct sockaddr_storage self;
    /* a ring for a turn after the one waited for, kept for its wait */
    int ahead;
    uint32_t ahead_gen, ahead_idx;
};

static void put32 (unsigned char *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint32_t get32 (const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

doorbell_t *doorbell_open (const char *toward, uint64_t cookie, tm_error_t *errp)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_DGRAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    doorbell_t *d = NULL;
    socklen_t len;
    int probe = -1, rc;

    if (!toward || !*toward) {
        errprintf (errp, "no address to route the doorbell by");
        return NULL;
    }
    /* "9": any port does; a UDP connect sends nothing, it only routes */
    if ((rc = getaddrinfo (toward, "9", &hints, &ai)) != 0) {
        char q[64];
        errprintf (errp, "'%s' is not a numeric address: %s", errquote (toward, 12, q, sizeof (q)),
                   gai_strerror (rc));
        return NULL;
    }
    if (!(d = calloc (1, sizeof (*d)))) {
        errnomem (errp);
        goto fail;
    }
    d->fd = -1;
    d->cookie = cookie;
    /* this host's address on the route toward it */
    len = sizeof (d->self);
    if ((probe = socket (ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect (probe, ai->ai_addr, ai->ai_addrlen) < 0 ||
        getsockname (probe, (struct sockaddr *)&d->self, &len) < 0) {
        errprintf (errp, "no route toward %s: %s", toward, strerror (errno));
        goto fail;
    }
    if (d->self.ss_family == AF_INET)
        ((struct sockaddr_in *)&d->self)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&d->self)->sin6_port = 0;
    len = d->self.ss_family == AF_INET ? sizeof (struct sockaddr_in) : sizeof (struct sockaddr_in6);
    if ((d->fd = socket (d->self.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0 ||
        bind (d->fd, (struct sockaddr *)&d->self, len) < 0 ||
        getsockname (d->fd, (struct sockaddr *)&d->self, &len) < 0) {
        errprintf (errp, "no doorbell socket: %s", strerror (errno));
        goto fail;
    }
    close (probe);
    freeaddrinfo (ai);
    return d;
fail:
    if (probe >= 0)
        close (probe);
    freeaddrinfo (ai);
    doorbell_close (d);
    return NULL;
}

void doorbell_address (const doorbell_t *d, doorbell_addr_t *a)
{
    memset (a, 0, sizeof (*a));
    if (!d)
        return;
    if (d->self.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)&d->self;
        a->family = 4;
        memcpy (a->port, &s->sin_port, 2);
        memcpy (a->addr, &s->sin_addr, 4);
    } else {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&d->self;
        a->family = 6;
        memcpy (a->port, &s->sin6_port, 2);
        memcpy (a->addr, &s->sin6_addr, 16);
    }
}

int doorbell_ring (doorbell_t *d, const doorbell_addr_t *a, uint32_t gen, uint32_t idx)
{
    struct sockaddr_storage to;
    unsigned char ring[RING_LEN];
    socklen_t len;

    if (!d || (a->family == 4) != (d->self.ss_family == AF_INET) ||
        (a->family != 4 && a->family != 6))
        return -1;
    memset (&to, 0, sizeof (to));
    if (a->family == 4) {
        struct sockaddr_in *s = (struct sockaddr_in *)&to;
        s->sin_family = AF_INET;
        memcpy (&s->sin_port, a->port, 2);
        memcpy (&s->sin_addr, a->addr, 4);
        len = sizeof (*s);
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&to;
        s->sin6_family = AF_INET6;
        memcpy (&s->sin6_port, a->port, 2);
        memcpy (&s->sin6_addr, a->addr, 16);
        len = sizeof (*s);
    }
    put32 (ring, (uint32_t)(d->cookie >> 32));
    put32 (ring + 4, (uint32_t)d->cookie);
    put32 (ring + 8, gen);
    put32 (ring + 12, idx);
    return sendto (d->fd, ring, sizeof (ring), MSG_DONTWAIT, (struct sockaddr *)&to, len) ==
                   (ssize_t)sizeof (ring)
               ? 0
               : -1;
}

/* (g, i) after (gen, idx) */
static int later (uint32_t g, uint32_t i, uint32_t gen, uint32_t idx)
{
    return g > gen || (g == gen && i > idx);
}

/* Read every datagram waiting: 1 when one rings for (gen, idx). */
static int drain (doorbell_t *d, uint32_t gen, uint32_t idx)
{
    unsigned char ring[RING_LEN + 1];
    int rung = 0;
    ssize_t n;

    while ((n = recv (d->fd, ring, sizeof (ring), MSG_DONTWAIT)) >= 0 || errno == EINTR) {
        if (n != RING_LEN || ((uint64_t)get32 (ring) << 32 | get32 (ring + 4)) != d->cookie)
            continue;
        uint32_t g = get32 (ring + 8), i = get32 (ring + 12);
        if (g == gen && i == idx)
            rung = 1;
        else if (later (g, i, gen, idx) &&
                 (!d->ahead || later (d->ahead_gen, d->ahead_idx, g, i))) {
            d->ahead = 1; /* the nearest turn to come */
            d->ahead_gen = g;
            d->ahead_idx = i;
        }
    }
    return rung;
}

int doorbell_wait (doorbell_t *d, uint32_t gen, uint32_t idx, long timeout_us)
{
    struct timespec now, end;

    if (!d)
        return 0;
    if (d->ahead && d->ahead_gen == gen && d->ahead_idx == idx) {
        d->ahead = 0;
        return 1;
    }
    if (d->ahead && !later (d->ahead_gen, d->ahead_idx, gen, idx))
        d->ahead = 0; /* its turn has passed */
    clock_gettime (CLOCK_MONOTONIC, &end);
    end.tv_sec += timeout_us / 1000000;
    end.tv_nsec += timeout_us % 1000000 * 1000;
    if (end.tv_nsec >= 1000000000) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000;
    }
    for (;;) {
        if (drain (d, gen, idx))
            return 1;
        clock_gettime (CLOCK_MONOTONIC, &now);
        if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            return 0;
        struct timespec left = {end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec};
        if (left.tv_nsec < 0) {
            left.tv_sec--;
            left.tv_nsec += 1000000000;
        }
        struct pollfd pfd = {.fd = d->fd, .events = POLLIN};
        if (ppoll (&pfd, 1, &left, NULL) < 0 && errno != EINTR)
            return 0;
    }
}

void doorbell_close (doorbell_t *d)
{
    if (!d)
        return;
    if (d->fd >= 0)
        close (d->fd);
    free (d);
}
