// Answers positions with the WebAssembly engine (crates/web/pkg-node): reads lines
// `FEN<TAB>DEPTH` on stdin, writes one JSON analysis a line (the fields of
// `fanorona analyze --json`), each from a fresh engine. Run by tests/node.rs.
const { Game, Engine } = require("../pkg-node/fanorona_web.js");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.trim());
for (const line of lines) {
  const [fen, depth] = line.split("\t");
  const game = Game.fromFen(fen);
  const engine = new Engine();
  console.log(engine.analyse(game, "depth", Number(depth)));
  engine.free();
  game.free();
}
// Step by step: a dimy game whose turns are played one decision at a time ends in the
// position its whole turns reach.
{
  const stepped = new Game("dimy"), whole = new Game("dimy");
  let n = 0;
  while (stepped.result() === "ongoing" && n++ < 400) {
    const steps = stepped.steps();
    const before = stepped.history().length;
    stepped.step(steps[n % steps.length]);
    if (stepped.history().length > before) whole.play(stepped.history()[before]);
  }
  if (stepped.fen() !== whole.fen()) throw new Error(`steps ${stepped.fen()} vs turns ${whole.fen()}`);
}
// On a game's clock: a legal turn; a clock with no time is refused.
{
  const game = new Game("dimy"), engine = new Engine();
  const best = engine.bestOnClock(game, 1000, 10);
  if (!game.turns().includes(best)) throw new Error(`bestOnClock: ${best} not legal`);
  let refused = false;
  try { engine.bestOnClock(game, 0, 0); } catch (e) { refused = String(e.message).includes("clock"); }
  if (!refused) throw new Error("bestOnClock(0, 0) was not refused");
}
// Errors are exceptions naming the input.
for (const [f, arg] of [[() => Game.fromFen("9/9 w"), "9/9 w"], [() => new Game("dimy").play("a1a9"), "a1a9"]]) {
  try {
    f();
    throw new Error(`no error for ${arg}`);
  } catch (e) {
    if (!String(e.message).includes(arg)) throw e;
  }
}
