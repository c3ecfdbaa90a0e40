/* A game of Fanorona through libfanorona: the engine plays both sides and each turn is
 * printed on a line of its own (a game `fanorona replay` reads), then the result.
 * Bad input is shown too: a broken FEN and an illegal turn come back as error codes with
 * a message, and the game goes on.
 *
 *   cc examples/play.c -Iinclude target/release/libfanorona.a -lpthread -ldl -lm -o play
 *   ./play [board] [depth]        board: tsivy (default), dimy or telo; depth: 3
 */
#include <stdio.h>
#include <stdlib.h>
#include "fanorona.h"

int main(int argc, char **argv) {
    const char *board = argc > 1 ? argv[1] : "tsivy";
    unsigned long depth = argc > 2 ? strtoul(argv[2], NULL, 10) : 3;

    FanoronaGame *bad = NULL;
    int code = fanorona_game_from_fen("9/9/9 x", &bad);
    fprintf(stderr, "a broken FEN: code %d, %s\n", code, fanorona_last_error());
    if (code != FANORONA_ERR_FEN || bad != NULL) return 1;

    FanoronaGame *game = NULL;
    if (fanorona_game_new(board, &game) != FANORONA_OK) {
        fprintf(stderr, "%s\n", fanorona_last_error());
        return 2;
    }
    code = fanorona_game_play(game, "a1a9");
    fprintf(stderr, "an illegal turn: code %d, %s\n", code, fanorona_last_error());
    if (code != FANORONA_ERR_TURN) return 1;

    FanoronaEngine *engine = fanorona_engine_new();
    int turns = 0;
    while (turns < 500) {
        char *turn = NULL;
        code = fanorona_engine_best(engine, game, FANORONA_DEPTH, depth, &turn);
        if (code != FANORONA_OK) {
            fprintf(stderr, "engine: %s\n", fanorona_last_error());
            return 3;
        }
        if (turn == NULL) break; /* the game is over */
        if (fanorona_game_play(game, turn) != FANORONA_OK) {
            fprintf(stderr, "play: %s\n", fanorona_last_error());
            return 4;
        }
        printf("%s\n", turn);
        fanorona_string_free(turn);
        turns++;
    }
    char *fen = fanorona_game_fen(game);
    fprintf(stderr, "%d turns, result %s, final position %s\n", turns,
            fanorona_game_result(game), fen);
    fanorona_string_free(fen);
    fanorona_engine_free(engine);
    fanorona_game_free(game);
    return 0;
}
