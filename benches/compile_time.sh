#!/usr/bin/env bash
# Compile time of N kinds written for kubegen against the same kinds written for kube-derive,
# two ways each:
# - the API types alone: `kubegen` with `default-features = false` (no runtime) against
#   `kube-derive`, kube with only its derive (`default-features = false, features =
#   ["derive"]`: no client);
# - with what talks to a cluster: `kubegen+runtime` (kubegen's default features: the typed
#   clients, listers, informers, controllers) against `kube+runtime` (kube's derive, client
#   and runtime on rustls, as kubegen's runtime has them).
#
# For each N and profile: dependencies are built first (untimed), then the generated crate is
# built clean (timed), then one field is changed and it is built again (timed). Prints the
# seconds and the kubegen/kube-derive ratios, then the size of each crate's macro expansion
# per kind (`rustc -Zunpretty=expanded`, through RUSTC_BOOTSTRAP; EXPANDED=0 skips it), so a
# derive whose output grows shows in the next run.
#
#   benches/compile_time.sh                 # N = 1 10 50, dev and release
#   NS="1 10" PROFILES=dev benches/compile_time.sh
#   NS=50 PROFILES= benches/compile_time.sh   # only the expanded sizes
#   APPLY=1 NS=50 benches/compile_time.sh     # kubegen's kinds with apply configurations
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$(mktemp -d)}
NS=${NS:-"1 10 50"}
PROFILES=${PROFILES-"dev release"}
export CARGO_TARGET_DIR="$WORK/target"
KUBE_VERSION=$(grep -m1 -E '^kube = \{ version' "$ROOT/Cargo.toml" | sed -E 's/.*version = "([^"]+)".*/\1/')
K8S_VERSION=$(grep -m1 -E '^k8s-openapi = \{ version' "$ROOT/Cargo.toml" | sed -E 's/.*version = "([^"]+)".*/\1/')

manifest() { # tool name
    local tool=$1 name=$2
    cat <<TOML
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[lib]
path = "src/lib.rs"

[workspace]

[dependencies]
k8s-openapi = { version = "$K8S_VERSION", features = ["latest", "schemars"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
    if [ "$tool" = kubegen ]; then
        echo "kubegen = { path = \"$ROOT\", default-features = false }"
    elif [ "$tool" = kubegen+runtime ]; then
        echo "kubegen = { path = \"$ROOT\" }"
    elif [ "$tool" = kube+runtime ]; then
        echo "kube = { version = \"$KUBE_VERSION\", default-features = false, features = [\"derive\", \"client\", \"runtime\", \"rustls-tls\", \"ring\"] }"
        echo 'schemars = { version = "1", features = ["derive"] }'
    else
        echo "kube = { version = \"$KUBE_VERSION\", default-features = false, features = [\"derive\"] }"
        echo 'schemars = { version = "1", features = ["derive"] }'
    fi
}

kinds() { # tool n field-name
    local tool=$1 n=$2 field=$3
    # APPLY=1: kubegen's kinds ask for apply configurations (kube-derive has none).
    local APPLY_ATTR=""
    [ "${APPLY:-0}" = 1 ] && APPLY_ATTR=$'\n#[apply]'
    if [[ $tool = kubegen* ]]; then
        echo "use std::collections::BTreeMap;"
        echo "use kubegen::prelude::*;"
    else
        echo "use std::collections::BTreeMap;"
        echo "use kube::CustomResource;"
        echo "use schemars::JsonSchema;"
        echo "use serde::{Deserialize, Serialize};"
    fi
    for i in $(seq 0 $((n - 1))); do
        if [[ $tool = kubegen* ]]; then
            cat <<RS

/// Kind $i.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "bench.example.com", version = "v1", kind = "Kind$i", status = "Kind${i}Status")]$APPLY_ATTR
#[serde(rename_all = "camelCase")]
pub struct Kind${i}Spec {
    /// The name.
    #[validate(min_length = 1)]
    pub name: String,
    /// How many.
    #[validate(minimum = 0)]
    pub replicas: Option<i32>,
    pub labels: BTreeMap<String, String>,
    pub items: Vec<Item$i>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]$APPLY_ATTR
pub struct Item$i {
    pub key: String,
    pub $field: i64,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]$APPLY_ATTR
pub struct Kind${i}Status {
    pub ready: bool,
    pub message: Option<String>,
}
RS
        else
            cat <<RS

/// Kind $i.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bench.example.com", version = "v1", kind = "Kind$i", namespaced, status = "Kind${i}Status")]
#[serde(rename_all = "camelCase")]
pub struct Kind${i}Spec {
    /// The name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// How many.
    #[schemars(range(min = 0))]
    pub replicas: Option<i32>,
    pub labels: BTreeMap<String, String>,
    pub items: Vec<Item$i>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Item$i {
    pub key: String,
    pub $field: i64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Kind${i}Status {
    pub ready: bool,
    pub message: Option<String>,
}
RS
        fi
    done
}

seconds() { # command...
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

expanded() { # dir -> "bytes lines" of the crate's macro expansion
    RUSTC_BOOTSTRAP=1 cargo rustc --quiet --profile check --manifest-path "$1/Cargo.toml" -- -Zunpretty=expanded 2> /dev/null | wc -c -l | awk '{print $2, $1}'
}

build() { # dir profile
    if [ "$2" = release ]; then
        cargo build --quiet --release --manifest-path "$1/Cargo.toml"
    else
        cargo build --quiet --manifest-path "$1/Cargo.toml"
    fi
}

TOOLS="kubegen kube-derive kubegen+runtime kube+runtime"
ratio() { echo "$1 / $2" | bc -l; }
printf "%-8s %4s %-10s %8s %12s %6s %16s %13s %6s\n" profile N build kubegen kube-derive ratio kubegen+runtime kube+runtime ratio
for profile in $PROFILES; do
    for n in $NS; do
        declare -A clean=() incr=()
        for tool in $TOOLS; do
            dir="$WORK/$tool-$n"
            name="gen-${tool/+/-}-$n"
            mkdir -p "$dir/src"
            manifest "$tool" "$name" > "$dir/Cargo.toml"
            kinds "$tool" 1 value > "$dir/src/lib.rs"
            build "$dir" "$profile" # dependencies, untimed
            kinds "$tool" "$n" value > "$dir/src/lib.rs"
            if [ "$profile" = release ]; then
                cargo clean --quiet --release -p "$name" --manifest-path "$dir/Cargo.toml"
            else
                cargo clean --quiet -p "$name" --manifest-path "$dir/Cargo.toml"
            fi
            clean[$tool]=$(seconds build "$dir" "$profile")
            kinds "$tool" "$n" value_changed > "$dir/src/lib.rs"
            incr[$tool]=$(seconds build "$dir" "$profile")
        done
        for build in clean one-field; do
            if [ $build = clean ]; then
                a=${clean[kubegen]} k=${clean[kube-derive]} r=${clean[kubegen+runtime]} c=${clean[kube+runtime]}
            else
                a=${incr[kubegen]} k=${incr[kube-derive]} r=${incr[kubegen+runtime]} c=${incr[kube+runtime]}
            fi
            printf "%-8s %4s %-10s %8.2f %12.2f %6.2f %16.2f %13.2f %6.2f\n" "$profile" "$n" $build "$a" "$k" "$(ratio "$a" "$k")" "$r" "$c" "$(ratio "$r" "$c")"
        done
    done
done

[ "${EXPANDED:-1}" = 0 ] && exit 0
echo
printf "%-20s %4s %22s %22s %8s %22s\n" "expanded per kind" N kubegen kube-derive ratio kubegen+runtime
for n in $NS; do
    declare -A bytes=() lines=()
    for tool in kubegen kube-derive kubegen+runtime; do
        dir="$WORK/$tool-$n"
        mkdir -p "$dir/src"
        manifest "$tool" "gen-${tool/+/-}-$n" > "$dir/Cargo.toml"
        kinds "$tool" "$n" value > "$dir/src/lib.rs"
        read -r b l < <(expanded "$dir")
        bytes[$tool]=$((b / n))
        lines[$tool]=$((l / n))
    done
    printf "%-20s %4s %16s bytes %16s bytes %8.2f %16s bytes\n" "" "$n" "${bytes[kubegen]}" "${bytes[kube-derive]}" "$(ratio "${bytes[kubegen]}" "${bytes[kube-derive]}")" "${bytes[kubegen+runtime]}"
    printf "%-20s %4s %16s lines %16s lines %8.2f %16s lines\n" "" "$n" "${lines[kubegen]}" "${lines[kube-derive]}" "$(ratio "${lines[kubegen]}" "${lines[kube-derive]}")" "${lines[kubegen+runtime]}"
done
