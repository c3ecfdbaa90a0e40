/* libfanorona: Fanorona games and engine (crates/capi). Made by cbindgen from
 * crates/capi/src/lib.rs: do not edit; `FANORONA_BLESS=1 cargo test -p
 * fanorona-capi` rewrites it. */

#ifndef FANORONA_H
#define FANORONA_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * Success.
 */
#define FANORONA_OK 0

/**
 * A board name that is not `tsivy`, `dimy` or `telo`.
 */
#define FANORONA_ERR_BOARD 1

/**
 * A FEN that cannot be read.
 */
#define FANORONA_ERR_FEN 2

/**
 * A turn that is malformed or not legal in the position.
 */
#define FANORONA_ERR_TURN 3

/**
 * The game is over: no turn may be played.
 */
#define FANORONA_ERR_OVER 4

/**
 * A budget of zero, out of range, or of an unknown kind.
 */
#define FANORONA_ERR_BUDGET 5

/**
 * Endgame tables that cannot be read.
 */
#define FANORONA_ERR_TABLES 6

/**
 * A null pointer or text that is not UTF-8.
 */
#define FANORONA_ERR_ARGUMENT 7

/**
 * A fault inside the library (a bug: please report it with the message).
 */
#define FANORONA_ERR_INTERNAL 8

/**
 * Budget kind: whole turns deep (1 to 64).
 */
#define FANORONA_DEPTH 0

/**
 * Budget kind: about this many nodes.
 */
#define FANORONA_NODES 1

/**
 * Budget kind: about this many milliseconds.
 */
#define FANORONA_MILLIS 2

/**
 * An engine (opaque): `fanorona_engine_new`, freed with `fanorona_engine_free`. It keeps
 * its hash table between searches; one search at a time per engine.
 */
typedef struct FanoronaEngine FanoronaEngine;

/**
 * A game (opaque): `fanorona_game_new` or `fanorona_game_from_fen`, freed with
 * `fanorona_game_free`.
 */
typedef struct FanoronaGame FanoronaGame;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The message of the last error on this thread (empty when none); valid until the
 * next call into the library on this thread.
 */
const char *fanorona_last_error(void);

/**
 * The library's version, `"0.1.0"`.
 */
const char *fanorona_version(void);

/**
 * Frees a string the library returned as `char *` (null is ignored).
 *
 * # Safety
 * `s` is null or a string from this library not freed before.
 */
void fanorona_string_free(char *s);

/**
 * A game at the start of `board` (`"tsivy"`, `"dimy"` or `"telo"`), stored in `*out`.
 *
 * # Safety
 * `board` is null or a NUL-terminated string; `out` is null or writable.
 */
int32_t fanorona_game_new(const char *board, struct FanoronaGame **out);

/**
 * A game from the position a FEN describes (its board from its size), in `*out`.
 *
 * # Safety
 * `fen` is null or a NUL-terminated string; `out` is null or writable.
 */
int32_t fanorona_game_from_fen(const char *fen, struct FanoronaGame **out);

/**
 * Frees a game (null is ignored).
 *
 * # Safety
 * `game` is null or a game of this library not freed before, used by no other thread.
 */
void fanorona_game_free(struct FanoronaGame *game);

/**
 * The current position in FEN (the caller frees it); null for a null game.
 *
 * # Safety
 * `game` is null or a live game.
 */
char *fanorona_game_fen(const struct FanoronaGame *game);

/**
 * The legal turns in notation, separated by single spaces (empty when the game is
 * over; the caller frees it); null for a null game.
 *
 * # Safety
 * `game` is null or a live game.
 */
char *fanorona_game_turns(const struct FanoronaGame *game);

/**
 * The turns played, in notation, separated by single spaces (the caller frees it);
 * null for a null game.
 *
 * # Safety
 * `game` is null or a live game.
 */
char *fanorona_game_history(const struct FanoronaGame *game);

/**
 * `"ongoing"`, `"white"`, `"black"` or `"draw"` (the library's string); `"invalid"` for
 * a null game.
 *
 * # Safety
 * `game` is null or a live game.
 */
const char *fanorona_game_result(const struct FanoronaGame *game);

/**
 * The side to move, `"white"` or `"black"` (the library's string); `"invalid"` for a
 * null game.
 *
 * # Safety
 * `game` is null or a live game.
 */
const char *fanorona_game_side(const struct FanoronaGame *game);

/**
 * Plays a turn in notation (`"d2d3"`, `"e2e3-f3-g3"`, a telo move). On an error the
 * game is unchanged.
 *
 * # Safety
 * `game` is null or a live game; `turn` is null or a NUL-terminated string.
 */
int32_t fanorona_game_play(struct FanoronaGame *game, const char *turn);

/**
 * Takes back the last turn: 1 when one was taken back, 0 when none was played, -1 for
 * a null game.
 *
 * # Safety
 * `game` is null or a live game.
 */
int32_t fanorona_game_undo(struct FanoronaGame *game);

/**
 * A new engine (alpha-beta with the release's learned evaluation, one thread; telo
 * solved), freed with `fanorona_engine_free`.
 */
struct FanoronaEngine *fanorona_engine_new(void);

/**
 * Frees an engine (null is ignored).
 *
 * # Safety
 * `engine` is null or an engine of this library not freed before, used by no other
 * thread.
 */
void fanorona_engine_free(struct FanoronaEngine *engine);

/**
 * The engine uses the endgame tables of `board` in folder `dir` (as `fanorona tb build`
 * writes them) from its next search on.
 *
 * # Safety
 * `engine` is null or a live engine; `board` and `dir` null or NUL-terminated strings.
 */
int32_t fanorona_engine_set_tables(struct FanoronaEngine *engine,
                                   const char *board,
                                   const char *dir);

/**
 * The engine's turn for the game's position within the budget (`kind` one of
 * `FANORONA_DEPTH`, `FANORONA_NODES`, `FANORONA_MILLIS`), in `*turn` (the caller frees
 * it; null when the game is over).
 *
 * # Safety
 * `engine` and `game` null or live handles; `turn` null or writable.
 */
int32_t fanorona_engine_best(struct FanoronaEngine *engine,
                             const struct FanoronaGame *game,
                             int32_t kind,
                             uint64_t amount,
                             char **turn);

/**
 * The engine's analysis as one line of JSON in `*json` (the caller frees it), the
 * fields of `fanorona analyze --json`: fen, best, score (hundredths of a piece for the
 * side to move), pv, depth, nodes, mate, seconds, nodes_per_second.
 *
 * # Safety
 * `engine` and `game` null or live handles; `json` null or writable.
 */
int32_t fanorona_engine_analyse(struct FanoronaEngine *engine,
                                const struct FanoronaGame *game,
                                int32_t kind,
                                uint64_t amount,
                                char **json);

/**
 * The engine's turn for the game's position on a game's clock, in `*turn` as
 * `fanorona_engine_best` gives it: `left_ms` is the side to move's time left and
 * `increment_ms` what its clock gains after the turn; the engine's time manager decides
 * how long to think (a share of the clock, longer while unsure, never near the flag).
 * Both zero is `FANORONA_ERR_BUDGET`.
 *
 * # Safety
 * `engine` and `game` null or live handles; `turn` null or writable.
 */
int32_t fanorona_engine_best_on_clock(struct FanoronaEngine *engine,
                                      const struct FanoronaGame *game,
                                      uint64_t left_ms,
                                      uint64_t increment_ms,
                                      char **turn);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* FANORONA_H */
