/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/doorbell.h"
#include "lib/test/tap.h"

static double now_s (void)
{
    struct timespec t;
    clock_gettime (CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A datagram of len bytes (the cookie's, then zeros) to a's doorbell. */
static void send_raw (const doorbell_addr_t *a, const unsigned char *data, size_t len)
{
    struct sockaddr_in to = {.sin_family = AF_INET};
    int fd = socket (AF_INET, SOCK_DGRAM, 0);
    memcpy (&to.sin_port, a->port, 2);
    memcpy (&to.sin_addr, a->addr, 4);
    sendto (fd, data, len, 0, (struct sockaddr *)&to, sizeof (to));
    close (fd);
}

int main (void)
{
    tm_error_t e = {""};
    doorbell_addr_t a, b, none;
    doorbell_t *d, *other, *stranger;
    double t;

    plan (NO_PLAN);
    d = doorbell_open ("127.0.0.1", 0x0123456789abcdefULL, &e);
    ok (d != NULL, "a doorbell opens toward 127.0.0.1 (%s)", e.text);
    if (!d)
        return done_testing ();
    doorbell_address (d, &a);
    ok (a.family == 4 && (a.port[0] || a.port[1]) && a.addr[0] == 127,
        "its address is IPv4 on 127.x with a port the kernel chose");
    doorbell_address (NULL, &none);
    ok (none.family == 0, "no doorbell has the address of none");

    ok (doorbell_ring (d, &a, 1, 5) == 0, "a ring is sent");
    t = now_s ();
    ok (doorbell_wait (d, 1, 5, 2000000) == 1 && now_s () - t < 1,
        "a ring sent before the wait ends it at once");
    t = now_s ();
    ok (doorbell_wait (d, 1, 6, 20000) == 0, "a wait nobody rings for ends unrung");
    ok (now_s () - t >= 0.019, "and only after its timeout (%.4f s)", now_s () - t);

    doorbell_ring (d, &a, 1, 4);
    t = now_s ();
    ok (doorbell_wait (d, 1, 5, 20000) == 0 && now_s () - t >= 0.019,
        "a ring for a turn before the one waited for is dropped, the sleep goes on");

    doorbell_ring (d, &a, 1, 9);
    ok (doorbell_wait (d, 1, 8, 20000) == 0, "a ring for a later turn does not end the wait");
    t = now_s ();
    ok (doorbell_wait (d, 1, 9, 2000000) == 1 && now_s () - t < 1,
        "but ends the wait for its own turn at once, read before it began");
    ok (doorbell_wait (d, 1, 9, 1000) == 0, "a ring is used once");
    doorbell_ring (d, &a, 2, 0);
    ok (doorbell_wait (d, 3, 0, 1000) == 0 && doorbell_wait (d, 2, 0, 1000) == 0,
        "a kept later ring whose turn has passed is forgotten");
    doorbell_ring (d, &a, 1, 3);
    ok (doorbell_wait (d, 2, 0, 1000) == 0, "a later generation is later than any index");

    other = doorbell_open ("127.0.0.1", 0x0123456789abcdefULL, &e);
    stranger = doorbell_open ("127.0.0.1", 42, &e);
    ok (other && stranger, "more doorbells open");
    doorbell_address (other, &b);
    ok (memcmp (a.port, b.port, 2) != 0, "each on a port of its own");
    doorbell_ring (stranger, &a, 7, 7);
    t = now_s ();
    ok (doorbell_wait (d, 7, 7, 20000) == 0 && now_s () - t >= 0.019,
        "a ring with another cookie is dropped, the sleep goes on");
    doorbell_close (stranger);
    doorbell_ring (d, &b, 7, 7);
    ok (doorbell_wait (other, 7, 7, 2000000) == 1, "one doorbell rings another");
    {
        unsigned char junk[64] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
        send_raw (&a, junk, 8);
        send_raw (&a, junk, sizeof (junk));
        send_raw (&a, junk, 0);
        t = now_s ();
        ok (doorbell_wait (d, 0, 0, 20000) == 0 && now_s () - t >= 0.019,
            "datagrams short, long or empty, even with the cookie, are dropped");
    }
    ok (doorbell_ring (d, &none, 1, 1) == -1, "a doorbell of family 0 cannot be rung");
    ok (doorbell_ring (NULL, &a, 1, 1) == -1, "nor can anything be rung without a doorbell");
    ok (doorbell_wait (NULL, 1, 1, 1000) == 0, "no doorbell is never rung");

    {
        /* a ring while the waiter sleeps in the kernel wakes it */
        pid_t pid = fork ();
        if (pid == 0) {
            usleep (50000);
            doorbell_ring (other, &a, 9, 1);
            _exit (0);
        }
        t = now_s ();
        int rung = doorbell_wait (d, 9, 1, 5000000);
        double dt = now_s () - t;
        waitpid (pid, NULL, 0);
        ok (rung == 1 && dt >= 0.04 && dt < 2, "a ring wakes a sleeping wait (%.4f s)", dt);
    }
    doorbell_close (other);

    {
        doorbell_t *six = doorbell_open ("::1", 1, &e);
        if (!six)
            diag ("no IPv6 loopback here: %s", e.text);
        else {
            doorbell_addr_t s;
            doorbell_address (six, &s);
            ok (s.family == 6, "a doorbell toward ::1 is IPv6");
            ok (doorbell_ring (six, &s, 1, 2) == 0 && doorbell_wait (six, 1, 2, 2000000) == 1,
                "and rings");
            ok (doorbell_ring (six, &a, 1, 2) == -1, "an IPv6 doorbell does not ring an IPv4 one");
            doorbell_close (six);
        }
    }

    ok (doorbell_open ("node17", 1, &e) == NULL && strstr (e.text, "'node17'") &&
            strstr (e.text, "numeric"),
        "a name is no numeric address, and the message names it (%s)", e.text);
    ok (doorbell_open ("", 1, &e) == NULL && doorbell_open (NULL, 1, &e) == NULL,
        "no address, no doorbell (%s)", e.text);
    ok (doorbell_open ("1.2.3.4\n\x1b[2J", 1, &e) == NULL && !strchr (e.text, '\x1b'),
        "a hostile address is quoted in the message (%s)", e.text);
    doorbell_close (NULL);
    doorbell_close (d);
    return done_testing ();
}
