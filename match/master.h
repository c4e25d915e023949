/* A local game master: runs matches of one game between contestants that are local
 * players (a kind of player.h, played in this process) or remote players spoken to over
 * HTTP exactly as the reference game master does (docs/http.md): one POST
 * per message; START within the start clock, PLAY within the play clock plus 1 s, STOP
 * within the play clock, 5 s to connect. A move that is late, unparsable or illegal is
 * replaced by a random legal move and counted. In GDL-II games the `random` role is played
 * by the master and each player is told only its turn, last move and percepts.
 *
 * The master runs in one thread; remote requests of a turn go out in parallel, each on its
 * own short-lived thread that only does socket I/O. */
#ifndef SERVER_MASTER_H
#define SERVER_MASTER_H

#include <stdio.h>

#include "player/player.h"

typedef struct {
    char *spec;                /* as given */
    const player_kind_t *kind; /* a local player, or NULL */
    char *host, *port;         /* a remote player */
    player_search_t search;    /* a local player's search counters, summed over its matches */
} contestant_t;

/* "KIND" or "http://HOST:PORT"; false with a reason in err. */
bool contestant_parse(const char *spec, contestant_t *c, strbuf_t *err);
void contestant_fini(contestant_t *c);

typedef struct {
    double startclock, playclock; /* seconds */
    uint64_t seed;                /* the master's random choices and the local players' */
    FILE *trace;                  /* when non-NULL, each match's canonical trace */
    bool verbose;                 /* one line per replaced move on stderr */
    uint32_t max_steps;
    /* duplicate: matches k and k' with k / duplicate == k' / duplicate start from the same
     * random state (the same deal, the same players' seeds): a deal played from every seat
     * (0: one random stream over all matches) */
    uint32_t duplicate;
} master_config_t;

/* How one contestant fared in one match. */
typedef struct {
    int goal; /* 0..100; -1 when the game gives none */
    uint32_t moves, timeouts, illegal;
    double slowest_ms;
    bool start_failed;
    /* START not answered within the start clock (a remote reply timed out or its connection
     * failed; a local agent_start returned after it), counted as a late PLAY is */
    bool start_late;
} seat_result_t;

typedef struct {
    uint32_t steps;
    double seconds;
    seat_result_t *seats; /* indexed by seat (the master's roles other than random) */
    char error[200];      /* non-empty when the match could not be played out */
} match_result_t;

typedef struct master master_t;

/* Loads the game of path; NULL with diagnostics in err when it does not load. */
master_t *master_new(const char *path, const master_config_t *cfg, strbuf_t *err);
void master_free(master_t *m);
/* The roles that need a contestant (all but `random`), and their names. */
uint32_t master_seats(const master_t *m);
const char *master_seat_name(const master_t *m, uint32_t seat);

/* Plays match number k (0-based) with contestant who[s] in seat s; fills res (free it
 * with match_result_fini). Returns false when the match could not be played out. */
bool master_play(master_t *m, uint32_t k, contestant_t *const *who, match_result_t *res);
void match_result_fini(match_result_t *res);

#endif
