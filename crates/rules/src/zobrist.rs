//! Zobrist keys, generated at compile time (splitmix64), so hashes are the same in every build.

/// All keys of one hashing scheme.
#[derive(Debug)]
pub struct Keys {
    /// `piece[color][point]`.
    pub piece: [[u64; 64]; 2],
    /// Black to move.
    pub black_to_move: u64,
    /// The piece that is in the middle of a capture chain stands on `point`.
    pub chain_piece: [u64; 64],
    /// `point` was visited by the chain piece during the current turn.
    pub visited: [u64; 64],
    /// The chain's last step went in direction `d`.
    pub last_dir: [u64; 8],
    /// Turn number 0 and 1 (the opening, where special rules may apply).
    pub opening: [u64; 2],
}

impl Keys {
    /// The hash of the pieces on the board and the side to move: the part every board's
    /// hash shares (tsivy and dimy add the opening and the chain in progress).
    pub fn board(&self, pieces: &crate::ByColor<crate::Bitboard>, side: crate::Color) -> u64 {
        let mut h = 0;
        for p in pieces.white {
            h ^= self.piece[0][p.index()];
        }
        for p in pieces.black {
            h ^= self.piece[1][p.index()];
        }
        if side == crate::Color::Black {
            h ^= self.black_to_move;
        }
        h
    }
}

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn build() -> Keys {
    let mut s = 0x46_414E_4F52_4F4E_u64; // "FANORON"
    let mut piece = [[0u64; 64]; 2];
    let mut chain_piece = [0u64; 64];
    let mut visited = [0u64; 64];
    let mut last_dir = [0u64; 8];
    let mut i = 0;
    while i < 64 {
        let (s1, a) = splitmix(s);
        let (s2, b) = splitmix(s1);
        let (s3, c) = splitmix(s2);
        let (s4, d) = splitmix(s3);
        s = s4;
        piece[0][i] = a;
        piece[1][i] = b;
        chain_piece[i] = c;
        visited[i] = d;
        i += 1;
    }
    let mut d = 0;
    while d < 8 {
        let (s1, k) = splitmix(s);
        s = s1;
        last_dir[d] = k;
        d += 1;
    }
    let (s1, black_to_move) = splitmix(s);
    let (s2, o0) = splitmix(s1);
    let (_, o1) = splitmix(s2);
    Keys {
        piece,
        black_to_move,
        chain_piece,
        visited,
        last_dir,
        opening: [o0, o1],
    }
}

/// The keys used by every position type of this crate.
pub static KEYS: Keys = build();
