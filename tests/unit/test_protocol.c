/* Unit tests for server/: the protocol messages (every kind, GDL and GDL-II forms, the
 * captured bodies of the reference game master with their odd spacing and upper-case
 * keywords, malformed messages), the exact reply texts, original spellings, and the player
 * service answering whole matches without HTTP. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/clock.h"
#include "deep_rules.h"
#include "gdl/casemap.h"
#include "many_moves.h"
#include "match/httpc.h"
#include "server/protocol.h"
#include "server/service.h"

static proto_msg_t parse_ok(const char *body) {
    proto_msg_t m;
    strbuf_t err;
    sb_init(&err);
    bool ok = proto_parse(body, strlen(body), &m, &err);
    if (!ok) fprintf(stderr, "unexpected error for %s: %s\n", body, sb_str(&err));
    assert_true(ok);
    sb_fini(&err);
    return m;
}

static void parse_bad(const char *body, size_t len, const char *why) {
    proto_msg_t m;
    strbuf_t err;
    sb_init(&err);
    assert_false(proto_parse(body, len, &m, &err));
    if (!strstr(sb_str(&err), why)) fprintf(stderr, "error for '%s': %s\n", body, sb_str(&err));
    assert_non_null(strstr(sb_str(&err), why));
    assert_null(m.id);
    proto_msg_fini(&m);
    sb_fini(&err);
}

static void test_info(void **state) {
    (void)state;
    const char *forms[] = {"(info)", "( INFO )", "(Info)\n", " \t(  iNfO\r\n) "};
    for (size_t i = 0; i < 4; i++) {
        proto_msg_t m = parse_ok(forms[i]);
        assert_int_equal(m.kind, MSG_INFO);
        assert_string_equal(proto_kind_name(m.kind), "info");
        proto_msg_fini(&m);
    }
}

static const char *const captured_start =
    "( START wirecap.ttt.1 xplayer (( role xplayer ) ( role oplayer ) ( index 1 ) "
    "( <= terminal ( not open ) ) ) 10 2)";

static void test_start_captured(void **state) {
    (void)state;
    proto_msg_t m = parse_ok(captured_start);
    assert_int_equal(m.kind, MSG_START);
    assert_string_equal(m.id, "wirecap.ttt.1");
    assert_string_equal(m.role, "xplayer");
    assert_int_equal(m.n_rules, 4);
    assert_string_equal(m.rules,
                        "(role xplayer)\n(role oplayer)\n(index 1)\n(<= terminal (not open))\n");
    assert_true(m.startclock == 10.0);
    assert_true(m.playclock == 2.0);
    proto_msg_fini(&m);
    m = parse_ok("(start M ColumnPlayer ((role ColumnPlayer)) 1.5 30)");
    assert_string_equal(m.id, "m");
    assert_string_equal(m.role, "columnplayer");
    assert_true(m.startclock == 1.5 && m.playclock == 30.0);
    proto_msg_fini(&m);
}

static void test_play_gdl(void **state) {
    (void)state;
    proto_msg_t m = parse_ok("( PLAY wirecap.ttt.1 NIL )");
    assert_int_equal(m.kind, MSG_PLAY);
    assert_string_equal(m.id, "wirecap.ttt.1");
    assert_false(m.gdl2);
    assert_true(m.nil);
    assert_int_equal(m.n_moves, 0);
    proto_msg_fini(&m);
    m = parse_ok("( PLAY wirecap.ttt.1 (( mark 1 2 ) noop ) )");
    assert_false(m.nil);
    assert_int_equal(m.n_moves, 2);
    assert_string_equal(m.moves[0], "(mark 1 2)");
    assert_string_equal(m.moves[1], "noop");
    proto_msg_fini(&m);
    m = parse_ok("(play x ())");
    assert_true(m.nil);
    proto_msg_fini(&m);
}

static void test_stop_gdl(void **state) {
    (void)state;
    proto_msg_t m = parse_ok("( STOP wirecap.ttt.1 (( mark 2 1 ) noop ) )");
    assert_int_equal(m.kind, MSG_STOP);
    assert_false(m.gdl2);
    assert_int_equal(m.n_moves, 2);
    assert_string_equal(m.moves[0], "(mark 2 1)");
    proto_msg_fini(&m);
}

static void test_play_stop_gdl2(void **state) {
    (void)state;
    proto_msg_t m = parse_ok("( PLAY guess.1 0 NIL NIL )");
    assert_int_equal(m.kind, MSG_PLAY);
    assert_true(m.gdl2);
    assert_int_equal(m.turn, 0);
    assert_null(m.lastmove);
    assert_int_equal(m.n_percepts, 0);
    proto_msg_fini(&m);
    m = parse_ok("(Play guess.1 3 ( Guess 2 ) ( higher (Seen X) ))");
    assert_int_equal(m.turn, 3);
    assert_string_equal(m.lastmove, "(guess 2)");
    assert_int_equal(m.n_percepts, 2);
    assert_string_equal(m.percepts[0], "higher");
    assert_string_equal(m.percepts[1], "(seen x)");
    proto_msg_fini(&m);
    m = parse_ok("( STOP guess.1 4 noop NIL )");
    assert_int_equal(m.kind, MSG_STOP);
    assert_true(m.gdl2);
    assert_string_equal(m.lastmove, "noop");
    proto_msg_fini(&m);
}

static void test_abort_preview(void **state) {
    (void)state;
    proto_msg_t m = parse_ok("( ABORT wirecap.ttt.1 )");
    assert_int_equal(m.kind, MSG_ABORT);
    assert_string_equal(m.id, "wirecap.ttt.1");
    proto_msg_fini(&m);
    m = parse_ok("( PREVIEW (( role a ) ( <= terminal ( true done ) )) 30 )");
    assert_int_equal(m.kind, MSG_PREVIEW);
    assert_int_equal(m.n_rules, 2);
    assert_true(m.startclock == 30.0);
    proto_msg_fini(&m);
}

static void test_malformed(void **state) {
    (void)state;
    struct {
        const char *body, *why;
    } cases[] = {
        {"", "one list"},
        {"garbage((", "malformed"},
        {"(info", "malformed"},
        {"(info))", "malformed"},
        {"info", "one list"},
        {"42", "one list"},
        {"(info) (info)", "one list"},
        {"((info))", "one list"},
        {"()", "one list"},
        {"(dance m)", "unknown command"},
        {"(info now)", "no arguments"},
        {"(start m r ((role r)) 10)", "5 arguments"},
        {"(start (m) r ((role r)) 10 2)", "match id"},
        {"(start m r notalist 10 2)", "rules"},
        {"(start m r ((role r)) ten 2)", "clocks"},
        {"(start m r ((role r)) -1 2)", "clocks"},
        {"(start m ?r ((role r)) 1 2)", "role"},
        {"(play m)", "ID MOVES"},
        {"(play m 1 2 3 4)", "ID MOVES"},
        {"(play m (?x noop))", "moves"},
        {"(play m mark)", "moves"},
        {"(play m -1 nil nil)", "turn"},
        {"(play m 1.5 nil nil)", "turn"},
        {"(play m 1 ((a)) nil)", "last move"},
        {"(play m 1 nil seen)", "percepts"},
        {"(stop m)", "ID MOVES"},
        {"(abort)", "1 argument"},
        {"(abort m n)", "1 argument"},
        {"(preview ((role r)))", "2 arguments"},
        {"(\"unterminated)", "malformed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        parse_bad(cases[i].body, strlen(cases[i].body), cases[i].why);
    parse_bad("(info)\0(info)", 13, "NUL");
}

static void test_deep_nesting(void **state) {
    (void)state;
    size_t n = 100000;
    char *deep = malloc(2 * n + 16);
    strcpy(deep, "(play m ");
    size_t k = strlen(deep);
    for (size_t i = 0; i < n; i++)
        deep[k++] = '(';
    for (size_t i = 0; i < n; i++)
        deep[k++] = ')';
    deep[k++] = ')';
    parse_bad(deep, k, "malformed");
    free(deep);
}

static void test_replies(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    proto_reply_info(&sb, "ggp-random", false);
    assert_string_equal(sb_str(&sb), "((name ggp-random) (status available))");
    sb_clear(&sb);
    proto_reply_info(&sb, "ggp", true);
    assert_string_equal(sb_str(&sb), "((name ggp) (status busy))");
    sb_clear(&sb);
    proto_reply_info(&sb, "my (odd) player", false);
    assert_string_equal(sb_str(&sb), "((name my__odd__player) (status available))");
    assert_string_equal(PROTO_READY, "ready");
    assert_string_equal(PROTO_DONE, "done");
    assert_string_equal(PROTO_ABORTED, "aborted");
    assert_string_equal(PROTO_BUSY, "busy");
    sb_fini(&sb);
}

static void test_casemap(void **state) {
    (void)state;
    casemap_t cm;
    casemap_init(&cm);
    const char *text = "; columnopen in a Comment\n(role xPlayer) (<= (legal ?Who (dropIn ?c)) "
                       "(columnOpen ?c)) (\"Str ing\") (DropIn 1)";
    casemap_scan(&cm, text, strlen(text));
    assert_string_equal(casemap_spell(&cm, "xplayer"), "xPlayer");
    assert_string_equal(casemap_spell(&cm, "dropin"), "dropIn"); /* the first spelling wins */
    assert_string_equal(casemap_spell(&cm, "columnopen"), "columnOpen");
    assert_string_equal(casemap_spell(&cm, "who"), "who"); /* variables are not symbols */
    assert_string_equal(casemap_spell(&cm, "unknown"), "unknown");
    term_store_t *ts = term_store_new();
    term_t args[2] = {term_const(ts, term_intern(ts, "1", 1)),
                      term_const(ts, term_intern(ts, "XPLAYER", 7))};
    term_t t = term_fun(ts, term_intern(ts, "dropin", 6), args, 2);
    strbuf_t sb;
    sb_init(&sb);
    casemap_print(&cm, ts, t, &sb);
    assert_string_equal(sb_str(&sb), "( dropIn 1 xPlayer )");
    sb_clear(&sb);
    term_t joint[2] = {t, term_const(ts, SYM_NOOP)};
    casemap_print_list(&cm, ts, joint, 2, &sb);
    assert_string_equal(sb_str(&sb), "(( dropIn 1 xPlayer ) noop )");
    sb_clear(&sb);
    casemap_print(NULL, ts, t, &sb);
    assert_string_equal(sb_str(&sb), "( dropin 1 xplayer )");
    for (int i = 0; i < 1000; i++) { /* growth */
        char tok[16];
        snprintf(tok, sizeof tok, "Sym%d", i);
        casemap_scan(&cm, tok, strlen(tok));
    }
    assert_string_equal(casemap_spell(&cm, "sym999"), "Sym999");
    assert_string_equal(casemap_spell(&cm, "xplayer"), "xPlayer");
    sb_fini(&sb);
    term_store_free(ts);
    casemap_fini(&cm);
}

static void test_parse_url(void **state) {
    (void)state;
    char *host, *port;
    assert_true(httpc_parse_url("http://127.0.0.1:9147", &host, &port));
    assert_string_equal(host, "127.0.0.1");
    assert_string_equal(port, "9147");
    free(host);
    free(port);
    assert_true(httpc_parse_url("http://localhost/", &host, &port));
    assert_string_equal(host, "localhost");
    assert_string_equal(port, "9147");
    free(host);
    free(port);
    assert_false(httpc_parse_url("https://x:1", &host, &port));
    assert_false(httpc_parse_url("http://:1", &host, &port));
    assert_false(httpc_parse_url("http://x:", &host, &port));
    assert_false(httpc_parse_url("http://x:1/path", &host, &port));
    assert_false(httpc_parse_url("http://x:123456", &host, &port));
}

/* ---- the service: whole matches without HTTP ---- */

static char *ask(service_t *s, const char *body) {
    proto_msg_t m = parse_ok(body);
    strbuf_t reply;
    sb_init(&reply);
    double deadline;
    service_answer(s, &m, body, strlen(body), now_seconds(), &reply, &deadline);
    sb_str(&reply);
    return reply.data;
}

static void expect(service_t *s, const char *body, const char *reply) {
    char *got = ask(s, body);
    if (strcmp(got, reply) != 0) fprintf(stderr, "%s -> %s (expected %s)\n", body, got, reply);
    assert_string_equal(got, reply);
    free(got);
}

static char *game_text(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GAMES_DIR, name);
    size_t len;
    char *text = read_file(path, &len);
    assert_non_null(text);
    return text;
}

static char *start_body(const char *id, const char *role, const char *rules, int sc, int pc) {
    strbuf_t sb;
    sb_init(&sb);
    sb_printf(&sb, "( START %s %s (%s) %d %d)", id, role, rules, sc, pc);
    return sb.data;
}

static service_t *legal_service(void) {
    service_config_t cfg = {.name = "tester", .kind = player_kind_find("legal"), .seed = 1};
    return service_new(&cfg);
}

static void test_service_gdl(void **state) {
    (void)state;
    service_t *s = legal_service();
    char *ttt = game_text("tictactoe.kif");
    char *start = start_body("m.1", "xplayer", ttt, 10, 5);
    expect(s, "(info)", "((name tester) (status available))");
    expect(s, "(play m.1 nil)", "busy"); /* unknown match */
    expect(s, start, "ready");
    expect(s, "( INFO )", "((name tester) (status busy))");
    char *other = start_body("m.2", "oplayer", ttt, 10, 5);
    expect(s, other, "busy"); /* one match at a time */
    expect(s, "(play m.2 nil)", "busy");
    expect(s, "( PLAY m.1 NIL )", "( mark 1 1 )");
    expect(s, "( PLAY m.1 (( mark 1 1 ) noop ) )", "noop");
    expect(s, "( PLAY m.1 (noop (mark 2 2)) )", "( mark 1 2 )");
    /* a move list inconsistent with the game: logged, the state is kept, a legal move sent */
    expect(s, "( PLAY m.1 (noop) )", "( mark 1 2 )");
    expect(s, "(preview ((role a)) 10)", "ready");
    expect(s, "( STOP m.1 (( mark 1 2 ) noop ) )", "done");
    expect(s, "(stop m.1 nil)", "busy");
    expect(s, "(info)", "((name tester) (status available))");
    expect(s, other, "ready");
    expect(s, "(play m.2 nil)", "noop");
    expect(s, "(abort m.2)", "aborted");
    expect(s, "(abort m.2)", "busy");
    free(other);
    free(start);
    free(ttt);
    service_wait_idle(s);
    service_free(s);
}

static void test_service_spelling(void **state) {
    (void)state;
    service_t *s = legal_service();
    const char *rules =
        "(role Robot) (init (Cell 1)) (<= (legal Robot (pushButton ?x)) (true (Cell ?x))) "
        "(<= (next (Cell 2)) (does Robot (pushButton 1))) (<= terminal (true (Cell 2))) "
        "(<= (goal Robot 100) (true (Cell 2))) (<= (goal Robot 0) (not (true (Cell 2))))";
    char *start = start_body("Spell.1", "ROBOT", rules, 10, 5);
    expect(s, start, "ready");
    expect(s, "(play spell.1 nil)", "( pushButton 1 )");
    expect(s, "(stop SPELL.1 ((PUSHBUTTON 1)))", "done");
    free(start);
    service_wait_idle(s);
    service_free(s);
}

static void test_service_gdl2(void **state) {
    (void)state;
    service_t *s = legal_service();
    char *guess = game_text("guess.kif");
    char *start = start_body("g.1", "player", guess, 10, 5);
    expect(s, start, "ready");
    expect(s, "( PLAY g.1 0 NIL NIL )", "noop");
    expect(s, "( PLAY g.1 1 noop NIL )", "( guess 1 )");
    expect(s, "( PLAY g.1 2 ( guess 1 ) ( higher ) )", "( guess 1 )");
    expect(s, "( PLAY g.1 2 ( guess 1 ) ( higher ) )", "( guess 1 )"); /* repeated turn */
    /* percepts nobody could have: the player still answers a legal move */
    expect(s, "( PLAY g.1 3 ( guess 1 ) ( lower ) )", "( guess 1 )");
    expect(s, "( STOP g.1 4 ( guess 1 ) ( higher ) )", "done");
    free(start);
    free(guess);
    service_wait_idle(s);
    service_free(s);
}

/* A GDL-II agent grounds the game as it loads (belief tracking's engine): by the START's
 * clock, not the grounder's own 10 s (SmallDominion2 kept the worker 10 s past a 2 s
 * START). A clock of 0 leaves it on the interpreter, and the match is answered as usual,
 * every move legal. Counted, not timed: the clock is gone before the worker starts. */
static void test_service_gdl2_start_clock(void **state) {
    (void)state;
    service_t *s = legal_service();
    char *guess = game_text("guess.kif");
    char *start = start_body("g0.1", "player", guess, 0, 5);
    expect(s, start, "ready");
    service_wait_idle(s); /* the START's work done: the agent and its engine made */
    assert_int_equal(service_engine_kind(s), ENGINE_INTERP);
    expect(s, "( PLAY g0.1 0 NIL NIL )", "noop");
    expect(s, "( PLAY g0.1 1 noop NIL )", "( guess 1 )");
    expect(s, "( PLAY g0.1 2 ( guess 1 ) ( higher ) )", "( guess 1 )");
    expect(s, "( STOP g0.1 3 ( guess 1 ) ( higher ) )", "done");
    free(start);
    free(guess);
    service_wait_idle(s);
    service_free(s);
}

static void test_service_bad_start(void **state) {
    (void)state;
    service_t *s = legal_service();
    expect(s, "(start b.1 r ((role r) (<= (legal r a) (true ?x) (not (foo ?y)))) 10 5)", "busy");
    expect(s, "(start b.2 nobody ((role r) (init x) (legal r a)) 10 5)", "busy");
    expect(s, "(info)", "((name tester) (status available))");
    expect(s, "(play b.1 nil)", "busy");
    service_wait_idle(s);
    service_free(s);
}

/* Asks and checks that the reply starts with prefix; returns the reply (caller frees). */
static char *expect_prefix(service_t *s, const char *body, const char *prefix) {
    char *got = ask(s, body);
    if (strncmp(got, prefix, strlen(prefix)) != 0)
        fprintf(stderr, "%s -> %s (expected %s...)\n", body, got, prefix);
    assert_int_equal(strncmp(got, prefix, strlen(prefix)), 0);
    return got;
}

/* A game the search cannot hold whole (more legal moves than its 16-bit counts: it once
 * ended the server, and every match after it) is played to its end by the default kind of
 * player, bounded by iterations, not clocks; then a tic-tac-toe match is served as usual. */
static void test_service_survives_many_moves(void **state) {
    (void)state;
    service_config_t cfg = {
        .name = "tester", .kind = player_kind_find("mcts:iters=30:engine=interp"), .seed = 1};
    assert_non_null(cfg.kind);
    service_t *s = service_new(&cfg);
    char *start = start_body("big.1", "chooser", MANY_MOVES_GAME, 30, 30);
    expect(s, start, "ready");
    char *move = expect_prefix(s, "(play big.1 nil)", "( choose ");
    strbuf_t body;
    sb_init(&body);
    sb_printf(&body, "(play big.1 (%s))", move);
    char *again = expect_prefix(s, sb_str(&body), "( choose ");
    sb_clear(&body);
    sb_printf(&body, "(stop big.1 (%s))", again);
    expect(s, sb_str(&body), "done");
    char *ttt = game_text("tictactoe.kif");
    char *next = start_body("ttt.1", "xplayer", ttt, 30, 30);
    expect(s, next, "ready");
    char *mark = expect_prefix(s, "(play ttt.1 nil)", "( mark ");
    sb_clear(&body);
    sb_printf(&body, "(play ttt.1 (%s noop))", mark);
    expect(s, sb_str(&body), "noop");
    expect(s, "(abort ttt.1)", "aborted");
    expect(s, "(info)", "((name tester) (status available))");
    sb_fini(&body);
    free(mark);
    free(next);
    free(ttt);
    free(again);
    free(move);
    free(start);
    service_wait_idle(s);
    service_free(s);
}

/* After a match the server gave up on, a tic-tac-toe match `id` is served as usual: ready,
 * the legal player's first move, aborted. */
static void expect_ttt_served(service_t *s, const char *id) {
    char *ttt = game_text("tictactoe.kif"), *next = start_body(id, "xplayer", ttt, 60, 60);
    char play[80], stop[80];
    snprintf(play, sizeof play, "(play %s nil)", id);
    snprintf(stop, sizeof stop, "(abort %s)", id);
    expect(s, next, "ready");
    expect(s, play, "( mark 1 1 )");
    expect(s, stop, "aborted");
    free(next);
    free(ttt);
}

/* A game text whose evaluation recurses 100,000 relations deep (deep_rules.h) ended the
 * server with a stack overflow in its worker thread. Now the reasoner gives up: the match
 * is answered with the fallback (no legal move is known: the move the rules write as
 * legal, `go`) and the next match is served. */
static void test_service_survives_deep_rules(void **state) {
    (void)state;
    service_t *s = legal_service();
    strbuf_t rules;
    sb_init(&rules);
    deep_relation_chain(&rules, 100000);
    char *start = start_body("deep.1", "r", sb_str(&rules), 60, 60);
    expect(s, start, "ready");
    expect(s, "(play deep.1 nil)", "go");
    expect(s, "(stop deep.1 (go))", "done");
    expect_ttt_served(s, "ttt.1");
    free(start);
    sb_fini(&rules);
    service_wait_idle(s);
    service_free(s);
}

/* `( m ( s ( s ... z ) ) )` as the service spells a move, nested k levels inside m. */
static char *deep_move(unsigned k) {
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "( m ");
    for (unsigned i = 0; i < k; i++)
        sb_puts(&sb, "( s ");
    sb_puts(&sb, "z ");
    for (unsigned i = 0; i < k; i++)
        sb_puts(&sb, ") ");
    sb_putc(&sb, ')');
    return sb.data;
}

/* A fluent nested 150 levels deeper a turn (deep_rules.h): two turns are answered with the
 * legal move; at the third the reasoner gives up (the successor would pass TERM_MAX_DEPTH)
 * and the service answers at once with a move it kept (none, or a guess of an earlier
 * turn), not with a 450-deep one, and serves the next match. */
static void test_service_survives_deep_terms(void **state) {
    (void)state;
    service_t *s = legal_service();
    strbuf_t rules, play;
    sb_init(&rules);
    sb_init(&play);
    deep_nesting_turns(&rules, 150, 10);
    char *start = start_body("deep.2", "r", sb_str(&rules), 60, 60);
    expect(s, start, "ready");
    expect(s, "(play deep.2 nil)", "( m z )");
    char *m150 = deep_move(150), *m300 = deep_move(300);
    expect(s, "(play deep.2 ((m z)))", m150);
    sb_printf(&play, "(play deep.2 (%s))", m150);
    expect(s, sb_str(&play), m300);
    sb_clear(&play);
    sb_printf(&play, "(play deep.2 (%s))", m300);
    /* a fallback kept: none, or a guess of an earlier turn (which one depends on how each
     * guess raced the next PLAY): never the 450-deep move */
    char *got = ask(s, sb_str(&play));
    bool kept = !strcmp(got, "nil") || !strcmp(got, m150) || !strcmp(got, m300);
    if (!kept) fprintf(stderr, "deep.2's third PLAY -> %zu bytes, not a move kept\n", strlen(got));
    assert_true(kept);
    free(got);
    expect(s, "(stop deep.2 nil)", "done");
    expect_ttt_served(s, "ttt.2");
    free(m150);
    free(m300);
    free(start);
    sb_fini(&play);
    sb_fini(&rules);
    service_wait_idle(s);
    service_free(s);
}

/* Waits (a generous bound, not a measure) until the match is played on an engine other
 * than the interpreter; false when it never is. */
static bool wait_grounded(service_t *s) {
    struct timespec pause = {0, 20 * 1000000L};
    for (double until = now_seconds() + 600; now_seconds() < until; nanosleep(&pause, NULL))
        if (service_engine_kind(s) != ENGINE_INTERP) return true;
    return false;
}

/* Tic-tac-toe as xplayer against an oplayer that takes the last empty cell: our reply in
 * board (cells 0 empty) is legal (a mark on an empty cell on our turn, else noop); marks
 * ours. */
static void expect_legal_ttt(const char *reply, bool our_turn, int board[3][3]) {
    int r = 0, c = 0;
    if (!our_turn) {
        assert_string_equal(reply, "noop");
        return;
    }
    if (sscanf(reply, "( mark %d %d )", &r, &c) != 2 || r < 1 || r > 3 || c < 1 || c > 3 ||
        board[r - 1][c - 1])
        fprintf(stderr, "illegal reply '%s'\n", reply);
    assert_int_equal(sscanf(reply, "( mark %d %d )", &r, &c), 2);
    assert_true(r >= 1 && r <= 3 && c >= 1 && c <= 3 && !board[r - 1][c - 1]);
    board[r - 1][c - 1] = 1;
}

/* A START whose clock is gone before the player makes its engine (a clock of 0) leaves
 * the match on the interpreter; a second agent grounds the game without that clock, and
 * between two turns the match moves to its engine (the moves so far replayed), its
 * answers legal to the end. A match aborted while its second agent prepares frees it. */
static void test_service_grounds_after_start(void **state) {
    (void)state;
    service_config_t cfg = {.name = "tester", .kind = player_kind_find("mcts:iters=30"), .seed = 1};
    assert_non_null(cfg.kind);
    service_t *s = service_new(&cfg);
    char *ttt = game_text("tictactoe.kif");
    char *gone = start_body("gone.1", "xplayer", ttt, 0, 60);
    expect(s, gone, "ready");
    expect(s, "(abort gone.1)", "aborted");
    char *start = start_body("late.1", "xplayer", ttt, 0, 60);
    expect(s, start, "ready");
    int board[3][3] = {{0}};
    char *mine = ask(s, "(play late.1 nil)");
    expect_legal_ttt(mine, true, board);
    strbuf_t body;
    sb_init(&body);
    for (int turn = 2; turn <= 5; turn++) {
        bool ours = turn % 2 == 1;
        sb_clear(&body);
        if (ours) { /* oplayer takes the last empty cell */
            int k = 8;
            while (board[k / 3][k % 3])
                k--;
            board[k / 3][k % 3] = 2;
            sb_printf(&body, "(play late.1 (noop (mark %d %d)))", k / 3 + 1, k % 3 + 1);
        } else {
            sb_printf(&body, "(play late.1 (%s noop))", mine);
        }
        free(mine);
        mine = ask(s, sb_str(&body));
        expect_legal_ttt(mine, ours, board);
        if (turn == 2) assert_true(wait_grounded(s)); /* with a move to replay */
    }
    assert_int_not_equal(service_engine_kind(s), ENGINE_INTERP);
    sb_clear(&body);
    sb_printf(&body, "(stop late.1 (%s noop))", mine);
    expect(s, sb_str(&body), "done");
    sb_fini(&body);
    free(mine);
    free(start);
    free(gone);
    free(ttt);
    service_wait_idle(s);
    service_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info),
        cmocka_unit_test(test_start_captured),
        cmocka_unit_test(test_play_gdl),
        cmocka_unit_test(test_stop_gdl),
        cmocka_unit_test(test_play_stop_gdl2),
        cmocka_unit_test(test_abort_preview),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_replies),
        cmocka_unit_test(test_casemap),
        cmocka_unit_test(test_parse_url),
        cmocka_unit_test(test_service_gdl),
        cmocka_unit_test(test_service_spelling),
        cmocka_unit_test(test_service_gdl2),
        cmocka_unit_test(test_service_gdl2_start_clock),
        cmocka_unit_test(test_service_bad_start),
        cmocka_unit_test(test_service_survives_many_moves),
        cmocka_unit_test(test_service_survives_deep_rules),
        cmocka_unit_test(test_service_survives_deep_terms),
        cmocka_unit_test(test_service_grounds_after_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
