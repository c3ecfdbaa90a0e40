//! The search's settings: [`MctsConfig`], with Gumbel root search's ([`GumbelConfig`]).

/// Gumbel root search settings ("Policy improvement by planning with Gumbel").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelConfig {
    /// Actions considered at the root (the top `m` of Gumbel + logits).
    pub max_actions: usize,
    /// `c_visit` of the Q transform.
    pub c_visit: f32,
    /// `c_scale` of the Q transform.
    pub c_scale: f32,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            max_actions: 16,
            c_visit: 50.0,
            c_scale: 1.0,
        }
    }
}

/// Search settings; every field has a documented default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// Exploration constant of PUCT (default 1.5).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this
    /// (default 0.25, on the [-1, 1] scale).
    pub fpu_reduction: f32,
    /// Dirichlet noise concentration at the root (default 0.3).
    pub dirichlet_alpha: f32,
    /// Weight of the root noise; 0 turns it off (default 0: on for self-play only).
    pub dirichlet_epsilon: f32,
    /// Leaves gathered per evaluator call (default 16).
    pub batch: usize,
    /// Gumbel root search instead of PUCT at the root (default off).
    pub gumbel: Option<GumbelConfig>,
    /// MCTS-solver (Winands, Björnsson and Saito 2008): a position whose value is settled
    /// by its children's exact values (one child wins for the player to move, or every
    /// child is settled) becomes exact itself. Selection never enters a child proven lost
    /// while another remains, a simulation that reaches a settled position backs its exact
    /// value up without an evaluation, and the choice at the root takes a proven win and
    /// avoids a proven loss whatever the visits say (default off).
    pub solver: bool,
    /// Forced playouts and policy target pruning (KataGo: Wu 2019, section 3.2), `k`
    /// (KataGo's self-play: 2; default 0 = off). A root child with prior `P` (noise
    /// included) is searched whenever it has fewer than `sqrt(k · P · N)` visits, `N`
    /// the root children's visits together, so that noise gets its exploration without
    /// PUCT's say. [`Mcts::policy`] and [`Mcts::choose`] (with a temperature) then take
    /// those visits back: every child but the most visited loses up to its forced visits
    /// as long as its PUCT value stays at most the best child's, and a child left with
    /// less than one visit drops out. The most visited child and a choice at temperature
    /// 0 are unchanged. Not with Gumbel root search (it has its own schedule).
    pub forced_playouts: f32,
    /// Implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant 2014), the
    /// weight `alpha` (0 = off). Each position keeps, beside its mean value, a
    /// minimax value of its searched subtree: an evaluated leaf's own value, an exact
    /// value where the game is over or proven, and above them the best of the visited
    /// children's for the player to move. Selection then values a child at
    /// `(1 - alpha) · mean + alpha · minimax`, so that one visit to a refutation counts
    /// at once, where the mean needs many to turn. The choice and the value reported
    /// stay the visits' and the mean's. Default 0.5: with the release networks held
    /// fixed it gained 3.8 points on dimy and 5.0 on tsivy against alpha-beta at 400
    /// simulations (experiments/search4); 0 is the plain mean.
    pub minimax_weight: f32,
    /// Policy softmax temperature (lc0's): each expanded position's priors are raised to
    /// `1 / T` and normalised, so `T > 1` flattens confident priors and the search looks
    /// at more of the turns the network rates low; 1 takes the priors as given. Default
    /// 3: with the release networks held fixed it gained 7.2 points on dimy and 11.0 on
    /// tsivy against alpha-beta at 400 simulations, and beat 2 on both
    /// (experiments/search6).
    pub policy_temperature: f32,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.0,
            batch: 16,
            gumbel: None,
            solver: false,
            forced_playouts: 0.0,
            minimax_weight: 0.5,
            policy_temperature: 3.0,
        }
    }
}
