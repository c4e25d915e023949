#!/usr/bin/env python3
"""Independent reference perft counts for the project's own games (games/*.kif).

Each game below is coded by hand in Python straight from the rules stated in
the comment block of its .kif file; no GDL is read or interpreted here, so the
figures are an independent check of the GDL reasoner.

perft(d) = the number of sequences of d joint moves from the initial state in
which every joint move is legal in the state it is played in and no state
before the last one is terminal (the state reached after d moves may be
terminal or not).  A joint move has one move per role, in role order; in
turn-taking games the roles not to move contribute their single `noop`, so
perft(1) of tic-tac-toe is 9.

Usage:
  perft_reference.py                       print the table of tests/perft.txt
  perft_reference.py GAME DEPTH [DEPTH..]  print `GAME DEPTH COUNT` lines
  perft_reference.py --states GAME         number of distinct reachable states
  perft_reference.py --replay GAME TRACE   the canonical trace (docs/trace-format.md) of
                                           the match whose moves TRACE (one match, as
                                           `ggp trace` prints it) plays, made by the hand
                                           model: it must equal TRACE (games with
                                           fluents() and, for GDL-II, sees())

Every game object offers: roles, initial(), legal(state) -> list (per role) of
move lists (moves written as canonical GDL terms, e.g. "(mark 1 2)"),
terminal(state), goals(state) -> list of ints, next(state, joint) and
fluents(state) -> sorted list of canonical GDL state facts (only used for
cross-checking against a GDL reasoner).
"""

import sys
from functools import lru_cache


def term(*parts):
    return "(" + " ".join(str(p) for p in parts) + ")"


# --------------------------------------------------------------------------
# Turn-taking helper: the role to move chooses, all others play noop.
# --------------------------------------------------------------------------

def turn_joint(nroles, mover, moves):
    """Per-role legal move lists for a turn-taking game."""
    return [moves if r == mover else ["noop"] for r in range(nroles)]


# --------------------------------------------------------------------------
# Tic-tac-toe: (cell row col b|x|o), xplayer first, three in a line wins.
# state = (cells, mover) where cells is a 9-tuple indexed (x-1)*3 + (y-1)
# --------------------------------------------------------------------------

class TicTacToe:
    name = "tictactoe.kif"
    roles = ["xplayer", "oplayer"]
    MARKS = ["x", "o"]
    LINES = ([[(x, y) for y in (1, 2, 3)] for x in (1, 2, 3)] +      # rows
             [[(x, y) for x in (1, 2, 3)] for y in (1, 2, 3)] +      # columns
             [[(1, 1), (2, 2), (3, 3)], [(1, 3), (2, 2), (3, 1)]])   # diagonals

    def initial(self):
        return (("b",) * 9, 0)

    @staticmethod
    def idx(x, y):
        return (x - 1) * 3 + (y - 1)

    def has_line(self, cells, m):
        return any(all(cells[self.idx(x, y)] == m for x, y in ln) for ln in self.LINES)

    def terminal(self, s):
        cells, _ = s
        return self.has_line(cells, "x") or self.has_line(cells, "o") or "b" not in cells

    def legal(self, s):
        cells, mover = s
        moves = [term("mark", x, y) for x in (1, 2, 3) for y in (1, 2, 3)
                 if cells[self.idx(x, y)] == "b"]
        return turn_joint(2, mover, moves)

    def next(self, s, joint):
        cells, mover = s
        mv = joint[mover]
        x, y = int(mv[6]), int(mv[8])
        c = list(cells)
        c[self.idx(x, y)] = self.MARKS[mover]
        return (tuple(c), 1 - mover)

    def goals(self, s):
        cells, _ = s
        res = []
        for r in range(2):
            if self.has_line(cells, self.MARKS[r]):
                res.append(100)
            elif self.has_line(cells, self.MARKS[1 - r]):
                res.append(0)
            else:
                res.append(50)
        return res

    def fluents(self, s):
        cells, mover = s
        f = [term("cell", x, y, cells[self.idx(x, y)]) for x in (1, 2, 3) for y in (1, 2, 3)]
        f.append(term("control", self.roles[mover]))
        return sorted(f)


# --------------------------------------------------------------------------
# Connect-k on a C x R upright board: red, black; (cell col row colour).
# state = (columns, mover); columns is a tuple of tuples (bottom first)
# --------------------------------------------------------------------------

class ConnectK:
    roles = ["red", "black"]

    def __init__(self, name, ncols, nrows, k):
        self.name, self.C, self.R, self.K = name, ncols, nrows, k

    def initial(self):
        return (tuple(() for _ in range(self.C)), 0)

    def at(self, cols, c, r):
        """Owner (0/1) of column c, row r (1-based) or None."""
        col = cols[c - 1]
        return col[r - 1] if r <= len(col) else None

    def has_line(self, cols, p):
        C, R, K = self.C, self.R, self.K
        for c in range(1, C + 1):
            for r in range(1, R + 1):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    ok = True
                    for i in range(K):
                        cc, rr = c + dc * i, r + dr * i
                        if not (1 <= cc <= C and 1 <= rr <= R) or self.at(cols, cc, rr) != p:
                            ok = False
                            break
                    if ok:
                        return True
        return False

    def terminal(self, s):
        cols, _ = s
        return (self.has_line(cols, 0) or self.has_line(cols, 1)
                or all(len(col) == self.R for col in cols))

    def legal(self, s):
        cols, mover = s
        moves = [term("drop", c) for c in range(1, self.C + 1) if len(cols[c - 1]) < self.R]
        return turn_joint(2, mover, moves)

    def next(self, s, joint):
        cols, mover = s
        c = int(joint[mover][6:-1])
        new = list(cols)
        new[c - 1] = cols[c - 1] + (mover,)
        return (tuple(new), 1 - mover)

    def goals(self, s):
        cols, _ = s
        res = []
        for p in range(2):
            if self.has_line(cols, p):
                res.append(100)
            elif self.has_line(cols, 1 - p):
                res.append(0)
            else:
                res.append(50)
        return res

    def fluents(self, s):
        cols, mover = s
        f = [term("cell", c + 1, r + 1, self.roles[p])
             for c, col in enumerate(cols) for r, p in enumerate(col)]
        f.append(term("control", self.roles[mover]))
        return sorted(f)


# --------------------------------------------------------------------------
# Breakthrough 8x8: white rows 1-2 moving up, black rows 7-8 moving down.
# state = (board, mover); board is a frozenset of (x, y, p) with p 0=white 1=black
# --------------------------------------------------------------------------

class Breakthrough:
    name = "breakthrough.kif"
    roles = ["white", "black"]
    N = 8

    def initial(self):
        b = set()
        for x in range(1, 9):
            for y in (1, 2):
                b.add((x, y, 0))
            for y in (7, 8):
                b.add((x, y, 1))
        return (frozenset(b), 0)

    def owner(self, board):
        return {(x, y): p for x, y, p in board}

    def wins(self, board, p):
        goal_row = 8 if p == 0 else 1
        if any(q == p and y == goal_row for _, y, q in board):
            return True
        return not any(q == 1 - p for _, _, q in board)

    def terminal(self, s):
        board, _ = s
        return self.wins(board, 0) or self.wins(board, 1)

    def legal(self, s):
        board, mover = s
        own = self.owner(board)
        dy = 1 if mover == 0 else -1
        moves = []
        for x, y, p in board:
            if p != mover:
                continue
            y2 = y + dy
            if not 1 <= y2 <= 8:
                continue
            if (x, y2) not in own:
                moves.append(term("move", x, y, x, y2))
            for x2 in (x - 1, x + 1):
                if 1 <= x2 <= 8 and own.get((x2, y2)) != mover:
                    moves.append(term("move", x, y, x2, y2))
        return turn_joint(2, mover, moves)

    def next(self, s, joint):
        board, mover = s
        x1, y1, x2, y2 = (int(v) for v in joint[mover][1:-1].split()[1:])
        b = {(x, y, p) for x, y, p in board if (x, y) != (x1, y1) and (x, y) != (x2, y2)}
        b.add((x2, y2, mover))
        return (frozenset(b), 1 - mover)

    def goals(self, s):
        board, _ = s
        return [100 if self.wins(board, p) else 0 for p in range(2)]

    def fluents(self, s):
        board, mover = s
        f = [term("cell", x, y, self.roles[p]) for x, y, p in board]
        f.append(term("control", self.roles[mover]))
        return sorted(f)


# --------------------------------------------------------------------------
# Nim: heaps a b c d = 1 2 3 5; take 1..all from one heap; last stone wins.
# state = (heaps, mover)
# --------------------------------------------------------------------------

class Nim:
    name = "nim.kif"
    roles = ["player1", "player2"]
    NAMES = "abcd"

    def initial(self):
        return ((1, 2, 3, 5), 0)

    def terminal(self, s):
        return sum(s[0]) == 0

    def legal(self, s):
        heaps, mover = s
        moves = [term("take", self.NAMES[i], n)
                 for i, h in enumerate(heaps) for n in range(1, h + 1)]
        return turn_joint(2, mover, moves)

    def next(self, s, joint):
        heaps, mover = s
        _, h, n = joint[mover][1:-1].split()
        i = self.NAMES.index(h)
        new = list(heaps)
        new[i] -= int(n)
        return (tuple(new), 1 - mover)

    def goals(self, s):
        # the player to move at the end did not take the last stone
        _, mover = s
        return [0 if p == mover else 100 for p in range(2)]

    def fluents(self, s):
        heaps, mover = s
        f = [term("heap", self.NAMES[i], h) for i, h in enumerate(heaps)]
        f.append(term("control", self.roles[mover]))
        return sorted(f)


# --------------------------------------------------------------------------
# Lights Out 3x3, at most 6 presses.  state = (lit frozenset of (x, y), step)
# --------------------------------------------------------------------------

class LightsOut:
    name = "lightsout.kif"
    roles = ["player"]
    LIMIT = 6

    def initial(self):
        return (frozenset({(1, 1), (1, 2), (1, 3), (3, 1), (3, 3)}), 0)

    def terminal(self, s):
        lit, step = s
        return not lit or step == self.LIMIT

    def legal(self, s):
        return [[term("press", x, y) for x in (1, 2, 3) for y in (1, 2, 3)]]

    def next(self, s, joint):
        lit, step = s
        x, y = (int(v) for v in joint[0][1:-1].split()[1:])
        new = set(lit)
        for a, b in ((x, y), (x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
            if 1 <= a <= 3 and 1 <= b <= 3:
                new ^= {(a, b)}
        return (frozenset(new), step + 1)

    def goals(self, s):
        return [0 if s[0] else 100]

    def fluents(self, s):
        lit, step = s
        return sorted([term("lit", x, y) for x, y in lit] + [term("step", step)])


# --------------------------------------------------------------------------
# Three-player tic-tac-toe on 4x4, three in a line wins; r1 r2 r3 in turn.
# state = (cells, mover); cells 16-tuple indexed (x-1)*4 + (y-1), values b/0/1/2
# --------------------------------------------------------------------------

class ThreePlayer:
    name = "three_player.kif"
    roles = ["r1", "r2", "r3"]

    def __init__(self):
        lines = []
        for x in range(1, 5):
            for y in range(1, 5):
                for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = [(x + dx * i, y + dy * i) for i in range(3)]
                    if all(1 <= a <= 4 and 1 <= b <= 4 for a, b in cells):
                        lines.append(cells)
        self.LINES = lines  # 24 lines

    def initial(self):
        return (("b",) * 16, 0)

    @staticmethod
    def idx(x, y):
        return (x - 1) * 4 + (y - 1)

    def has_line(self, cells, p):
        return any(all(cells[self.idx(x, y)] == p for x, y in ln) for ln in self.LINES)

    def winner(self, cells):
        for p in range(3):
            if self.has_line(cells, p):
                return p
        return None

    def terminal(self, s):
        cells, _ = s
        return self.winner(cells) is not None or "b" not in cells

    def legal(self, s):
        cells, mover = s
        moves = [term("mark", x, y) for x in range(1, 5) for y in range(1, 5)
                 if cells[self.idx(x, y)] == "b"]
        return turn_joint(3, mover, moves)

    def next(self, s, joint):
        cells, mover = s
        x, y = (int(v) for v in joint[mover][1:-1].split()[1:])
        c = list(cells)
        c[self.idx(x, y)] = mover
        return (tuple(c), (mover + 1) % 3)

    def goals(self, s):
        cells, _ = s
        w = self.winner(cells)
        if w is None:
            return [50, 50, 50]
        return [100 if p == w else 0 for p in range(3)]

    def fluents(self, s):
        cells, mover = s
        f = []
        for x in range(1, 5):
            for y in range(1, 5):
                v = cells[self.idx(x, y)]
                f.append(term("cell", x, y, "b" if v == "b" else self.roles[v]))
        f.append(term("control", self.roles[mover]))
        return sorted(f)


# --------------------------------------------------------------------------
# Rock-paper-scissors, 5 simultaneous rounds.  state = (round, score0, score1)
# --------------------------------------------------------------------------

class Simultaneous:
    name = "simultaneous.kif"
    roles = ["alice", "bob"]
    BEATS = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
    ROUNDS = 5

    def initial(self):
        return (0, 0, 0)

    def terminal(self, s):
        return s[0] == self.ROUNDS

    def legal(self, s):
        return [["paper", "rock", "scissors"]] * 2

    def next(self, s, joint):
        rnd, a, b = s
        if (joint[0], joint[1]) in self.BEATS:
            a += 1
        if (joint[1], joint[0]) in self.BEATS:
            b += 1
        return (rnd + 1, a, b)

    def goals(self, s):
        _, a, b = s
        if a > b:
            return [100, 0]
        if b > a:
            return [0, 100]
        return [50, 50]

    def fluents(self, s):
        rnd, a, b = s
        return sorted([term("round", rnd), term("score", "alice", a), term("score", "bob", b)])


# --------------------------------------------------------------------------
# Hex 5x5: red joins row 1 to row 5, blue joins column 1 to column 5.
# state = (stones frozenset of (x, y, p), mover), p 0=red 1=blue
# --------------------------------------------------------------------------

class Hex:
    name = "hex5.kif"
    roles = ["red", "blue"]
    N = 5
    DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1), (1, -1), (-1, 1))

    def initial(self):
        return (frozenset(), 0)

    def connected(self, stones, p):
        own = {(x, y) for x, y, q in stones if q == p}
        if p == 0:
            start = [c for c in own if c[1] == 1]
            done = lambda c: c[1] == self.N
        else:
            start = [c for c in own if c[0] == 1]
            done = lambda c: c[0] == self.N
        seen = set(start)
        stack = list(start)
        while stack:
            c = stack.pop()
            if done(c):
                return True
            for dx, dy in self.DIRS:
                d = (c[0] + dx, c[1] + dy)
                if d in own and d not in seen:
                    seen.add(d)
                    stack.append(d)
        return False

    def terminal(self, s):
        return self.connected(s[0], 0) or self.connected(s[0], 1)

    def legal(self, s):
        stones, mover = s
        occ = {(x, y) for x, y, _ in stones}
        moves = [term("place", x, y) for x in range(1, 6) for y in range(1, 6)
                 if (x, y) not in occ]
        return turn_joint(2, mover, moves)

    def next(self, s, joint):
        stones, mover = s
        x, y = (int(v) for v in joint[mover][1:-1].split()[1:])
        return (stones | {(x, y, mover)}, 1 - mover)

    def goals(self, s):
        return [100 if self.connected(s[0], p) else 0 for p in range(2)]

    def fluents(self, s):
        stones, mover = s
        f = [term("cell", x, y, self.roles[p]) for x, y, p in stones]
        f.append(term("control", self.roles[mover]))
        return sorted(f)


# --------------------------------------------------------------------------
# Guess the number (GDL-II): random picks 1..4, player has 3 guesses.
# state = (stage, secret or None, found)
# --------------------------------------------------------------------------

class Guess:
    name = "guess.kif"
    roles = ["random", "player"]

    def initial(self):
        return (0, None, False)

    def terminal(self, s):
        return s[2] or s[0] == 4

    def legal(self, s):
        stage = s[0]
        if stage == 0:
            return [[term("choose", n) for n in range(1, 5)], ["noop"]]
        return [["noop"], [term("guess", n) for n in range(1, 5)]]

    def next(self, s, joint):
        stage, secret, found = s
        if stage == 0:
            secret = int(joint[0][1:-1].split()[1])
        else:
            g = int(joint[1][1:-1].split()[1])
            found = found or g == secret
        return (stage + 1, secret, found)

    def sees(self, s, joint):
        stage, secret, _ = s
        if stage == 0:
            return [[], []]
        g = int(joint[1][1:-1].split()[1])
        p = "correct" if g == secret else ("higher" if secret > g else "lower")
        return [[], [p]]

    def goals(self, s):
        stage, _, found = s
        if not found:
            return [0, 0]
        return [0, {2: 100, 3: 75, 4: 50}[stage]]

    def fluents(self, s):
        stage, secret, found = s
        f = [term("stage", stage)]
        if secret is not None:
            f.append(term("secret", secret))
        if found:
            f.append("found")
        return sorted(f)


# --------------------------------------------------------------------------
# A small tarok (tarok.kif): random deals h1..h4 s1..s4 t1..t5 in this order,
# one card per step, to a free slot of p1, p2, p3 (4 slots each) or the talon
# (1 slot); then four tricks: follow suit, else a tarok, else anything; the
# highest tarok, else the highest card of the suit led, takes the trick and
# leads the next; the last trick also takes the talon card.
# state = (dealt, hands, talon, control, led, trick, scores, tricks)
#   dealt  number of cards dealt (13: the play stage)
#   hands  three frozensets of cards; trick: tuple of (player index, card)
# --------------------------------------------------------------------------

class Tarok:
    name = "tarok.kif"
    roles = ["random", "p1", "p2", "p3"]
    DECK = ["h1", "h2", "h3", "h4", "s1", "s2", "s3", "s4", "t1", "t2", "t3", "t4", "t5"]
    POINTS = {"h1": 1, "h2": 1, "h3": 2, "h4": 3, "s1": 1, "s2": 1, "s3": 2, "s4": 3,
              "t1": 3, "t2": 1, "t3": 1, "t4": 1, "t5": 3}
    SUIT = {"h": "hearts", "s": "spades", "t": "tarok"}

    def initial(self):
        return (0, (frozenset(),) * 3, None, None, None, (), (0, 0, 0), 0)

    def terminal(self, s):
        return s[7] == 4

    @classmethod
    def suit(cls, c):
        return cls.SUIT[c[0]]

    def playable(self, s, p):
        hand, led = s[1][p], s[4]
        if led is None:
            return sorted(hand)
        follow = [c for c in hand if self.suit(c) == led]
        taroks = [c for c in hand if self.suit(c) == "tarok"]
        return sorted(follow or taroks or hand)

    def legal(self, s):
        dealt, hands, talon, control = s[0], s[1], s[2], s[3]
        if dealt < 13:
            card = self.DECK[dealt]
            deals = [term("deal", card, "p%d" % (p + 1), k)
                     for p in range(3) for k in range(len(hands[p]) + 1, 5)]
            if talon is None:
                deals.append(term("deal", card, "talon", 1))
            return [deals, ["noop"], ["noop"], ["noop"]]
        return [["noop"]] + [[term("play", c) for c in self.playable(s, p)]
                             if p == control else ["noop"] for p in range(3)]

    def winner(self, trick, led):
        def strength(c):
            if self.suit(c) == "tarok":
                return 200 + int(c[1])
            return 100 + int(c[1]) if self.suit(c) == led else 0
        return max(trick, key=lambda pc: strength(pc[1]))[0]

    def next(self, s, joint):
        dealt, hands, talon, control, led, trick, scores, tricks = s
        if dealt < 13:
            _, card, holder, _ = joint[0][1:-1].split()
            if holder == "talon":
                talon = card
            else:
                p = int(holder[1]) - 1
                hands = tuple(h | {card} if i == p else h for i, h in enumerate(hands))
            dealt += 1
            if dealt == 13:
                control, tricks = 0, 0
            return (dealt, hands, talon, control, led, trick, scores, tricks)
        card = joint[1 + control][1:-1].split()[1]
        hands = tuple(h - {card} if i == control else h for i, h in enumerate(hands))
        if led is None:
            led = self.suit(card)
        trick = trick + ((control, card),)
        if len(trick) < 3:
            return (dealt, hands, talon, (control + 1) % 3, led, trick, scores, tricks)
        w = self.winner(trick, led)
        pts = sum(self.POINTS[c] for _, c in trick)
        tricks += 1
        if tricks == 4:
            pts += self.POINTS[talon]
        scores = tuple(v + pts if i == w else v for i, v in enumerate(scores))
        return (dealt, hands, talon, w if tricks < 4 else None, None, (), scores, tricks)

    def sees(self, s, joint):
        if s[0] < 13:
            _, card, holder, _ = joint[0][1:-1].split()
            return [[]] + [[term("dealt", card)] if holder == "p%d" % (p + 1) else []
                           for p in range(3)]
        played = [term("played", "p%d" % (s[3] + 1), joint[1 + s[3]][1:-1].split()[1])]
        return [[]] + [played] * 3

    def goals(self, s):
        return [0] + [(200 * v + 23) // 46 for v in s[6]]

    def fluents(self, s):
        dealt, hands, talon, control, led, trick, scores, tricks = s
        f = []
        if dealt < 13:
            f += ["(stage deal)", term("dealidx", dealt + 1)]
            f += [term("count", "p%d" % (p + 1), len(hands[p])) for p in range(3)]
            f.append(term("count", "talon", 0 if talon is None else 1))
        else:
            f += ["(stage play)", term("tricks", tricks)]
        f += [term("holds", "p%d" % (p + 1), c) for p in range(3) for c in hands[p]]
        if talon is not None:
            f.append(term("talon", talon))
        if control is not None:
            f.append(term("control", "p%d" % (control + 1)))
        if led is not None:
            f.append(term("led", led))
            f.append(term("incount", len(trick)))
        f += [term("intrick", "p%d" % (p + 1), c) for p, c in trick]
        f += [term("score", "p%d" % (p + 1), scores[p]) for p in range(3)]
        return sorted(f)


# --------------------------------------------------------------------------

GAMES = {g.name: g for g in (
    TicTacToe(),
    ConnectK("connect4.kif", 7, 6, 4),
    ConnectK("connect3_4x4.kif", 4, 4, 3),
    Breakthrough(),
    Nim(),
    LightsOut(),
    ThreePlayer(),
    Simultaneous(),
    Hex(),
    Guess(),
    Tarok(),
)}


def joint_moves(per_role):
    res = [[]]
    for moves in per_role:
        res = [j + [m] for j in res for m in moves]
    return res


def perft(game, depth):
    @lru_cache(maxsize=None)
    def rec(state, d):
        if d == 0:
            return 1
        if game.terminal(state):
            return 0
        return sum(rec(game.next(state, j), d - 1) for j in joint_moves(game.legal(state)))
    return rec(game.initial(), depth)


def reachable_states(game):
    seen = {game.initial()}
    stack = [game.initial()]
    while stack:
        s = stack.pop()
        if game.terminal(s):
            continue
        for j in joint_moves(game.legal(s)):
            t = game.next(s, j)
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return len(seen)


# The table written to tests/perft.txt.
TABLE = [
    ("tictactoe.kif", [1, 2, 3, 4, 5, 6, 7, 8, 9]),
    ("connect4.kif", [1, 2, 3, 4]),
    ("connect3_4x4.kif", [1, 2, 3, 4, 5, 6, 7]),
    ("breakthrough.kif", [1, 2, 3]),
    ("nim.kif", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    ("three_player.kif", [1, 2, 3, 4]),
    ("hex5.kif", [1, 2, 3, 4]),
    ("simultaneous.kif", [1, 2, 3, 4, 5, 6]),
    ("lightsout.kif", [1, 2, 3, 4, 5]),
    ("tarok.kif", [1, 2, 3, 4, 5]),
]


def split_terms(text):
    """The terms of a line of canonical text: constants and parenthesised terms."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == " " and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    if cur:
        out.append(cur)
    return out


def replay(game, trace_lines):
    """The trace of the match with the joint moves of trace_lines, by the model."""
    name = game.name.rsplit(".", 1)[0]
    out = ["game " + name, "roles " + " ".join(game.roles)]
    moves = [split_terms(l[5:]) for l in trace_lines if l.startswith("does ")]
    s, step = game.initial(), 0
    while True:
        out += ["step %d" % step, " ".join(["state"] + game.fluents(s))]
        if game.terminal(s):
            out.append("terminal yes")
            out += ["goal %s %d" % (r, g) for r, g in zip(game.roles, game.goals(s))]
            out.append("end")
            return out
        for r, ms in zip(game.roles, game.legal(s)):
            out.append(" ".join(["legal", r] + sorted(ms)))
        out.append("terminal no")
        joint = moves[step]
        out.append("does " + " ".join(joint))
        if hasattr(game, "sees"):
            for r, ps in zip(game.roles, game.sees(s, joint)):
                if ps:
                    out.append(" ".join(["sees", r] + sorted(set(ps))))
        s, step = game.next(s, joint), step + 1


def main(argv):
    if len(argv) == 3 and argv[0] == "--replay":
        with open(argv[2]) as f:
            lines = f.read().splitlines()
        mine = replay(GAMES[argv[1]], lines)
        for i, (a, b) in enumerate(zip(mine, lines)):
            if a != b:
                print("line %d differs:\n  model: %s\n  trace: %s" % (i + 1, a, b))
                sys.exit(1)
        if len(mine) != len(lines):
            print("lengths differ: model %d lines, trace %d" % (len(mine), len(lines)))
            sys.exit(1)
        print("%s: %d lines agree" % (argv[2], len(mine)))
        return
    if len(argv) >= 2 and argv[0] == "--states":
        print(argv[1], reachable_states(GAMES[argv[1]]))
        return
    if argv:
        g = GAMES[argv[0]]
        for d in argv[1:]:
            print(g.name, d, perft(g, int(d)))
        return
    for name, depths in TABLE:
        for d in depths:
            print(name, d, perft(GAMES[name], d))


if __name__ == "__main__":
    main(sys.argv[1:])
