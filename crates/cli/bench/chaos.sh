#!/usr/bin/env bash
# Kills at random (issue 99): SIGKILLs, at KILLS random moments over SECONDS, (a) the
# main job's recipe in small (`fanorona train`: an evaluation and a network learning
# from the same games) and (b) a distributed tree run (a learner and two workers over a
# folder store), restarting each with the same command; then checks that every
# checkpoint reads and that the counters against the records show nothing lost or
# learned twice (the tests `*_killed_at_random_*` in crates/cli/tests/distributed.rs,
# which `cargo test` runs in short).
#
#   crates/cli/bench/chaos.sh               # 20 kills over 10 minutes, each part
#   crates/cli/bench/chaos.sh 60 5 1234     # 5 kills over a minute, seed 1234
set -euo pipefail
cd "$(dirname "$0")/../../.."
export FANORONA_CHAOS_SECONDS=${1:-600} FANORONA_CHAOS_KILLS=${2:-20}
[ $# -ge 3 ] && export FANORONA_CHAOS_SEED=$3
cargo test --release -p fanorona-cli --test distributed -- --nocapture --test-threads 1 \
    killed_at_random
