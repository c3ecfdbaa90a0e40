"""Type stubs of the `fanorona` package (the Rust extension `fanorona._fanorona`)."""

from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
VARIANTS: Tuple[str, str, str]

Rules = Mapping[str, Union[str, int, bool]]

class Game:
    """One game of any variant, with whole-turn and step-level moves."""

    def __init__(
        self,
        variant: Optional[str] = None,
        fen: Optional[str] = None,
        rules: Optional[Rules] = None,
    ) -> None: ...
    @property
    def variant(self) -> str: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def observation_shape(self) -> Tuple[int, int, int]: ...
    def fen(self) -> str: ...
    def side(self) -> str:
        """The player who decides now: "white" or "black"."""
    def turns(self) -> list[str]:
        """The legal whole turns in notation (at the start of a turn)."""
    def play(self, turn: str) -> None:
        """Plays a whole turn in notation; ValueError if it is not legal."""
    def actions(self) -> list[int]:
        """The legal step-level action ids (mover's frame), ascending."""
    def step(self, action: int) -> None:
        """Plays one step-level action (mover's frame); ValueError if it is not legal."""
    def action_name(self, action: int) -> str: ...
    def result(self) -> str:
        """"ongoing", "white", "black" or "draw"."""
    def copy(self) -> "Game": ...
    def observation(self) -> npt.NDArray[np.float32]:
        """Planes (C, H, W) in the mover's frame."""
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """Legal actions (num_actions,) in the mover's frame."""

def perft(fen_or_variant: str, depth: int, rules: Optional[Rules] = None) -> int:
    """Leaf positions `depth` whole turns ahead of a FEN or of a variant's start."""

def num_actions(variant: str) -> int: ...
def observation_shape(variant: str) -> Tuple[int, int, int]: ...

class VecEnv:
    """Many games stepped together in Rust, with automatic reset."""

    def __init__(
        self, variant: str, num_envs: int, seed: int = 0, rules: Optional[Rules] = None
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def observation_shape(self) -> Tuple[int, int, int]: ...
    def reset(
        self, seed: Optional[int] = None
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]: ...
    def step(
        self, actions: Union[npt.NDArray[np.integer[Any]], Sequence[int]]
    ) -> Tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
    ]:
        """(obs, mask, reward, terminated, truncated); reward to the player who moved."""
    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per game, drawn in Rust."""
    def fens(self) -> list[str]: ...

class Engine:
    """A player spec: "ab:time=100ms", "ab:depth=6", "mcts:sims=400", "random"...; with
    none, the default player "ab:time=1s,eval=release,book=release"."""

    def __init__(self, spec: str = "ab:time=1s,eval=release,book=release", rules: Optional[Rules] = None) -> None: ...
    @property
    def spec(self) -> str: ...
    def best(self, fen: str) -> Optional[str]:
        """The engine's turn in notation (None when the game is over)."""
    def analyze(self, fen: str) -> dict[str, Any]:
        """fen, best, score, pv, depth, nodes, mate, seconds, nodes_per_second."""

class Net:
    """A checkpoint's policy/value network."""

    def __init__(self, path: str) -> None: ...
    @staticmethod
    def release(variant: str) -> "Net": ...
    @property
    def variant(self) -> str: ...
    @property
    def path(self) -> str: ...
    def evaluate(
        self, obs: npt.NDArray[np.float32]
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Policy logits (N, num_actions) and WDL probabilities (N, 3)."""
