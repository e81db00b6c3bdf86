#!/usr/bin/env bash
# Builds every overlay under k8s/overlays with kustomize and validates the output offline:
#   1. kubeconform -strict against the Kubernetes JSON schemas (oldest and newest supported
#      Kubernetes); the schemas come from the PyPI package kubernetes-validate, because
#      kubeconform's default location (GitHub) is not reachable from here or from CI;
#   2. the Strimzi KafkaTopic resources against k8s/schemas/crd (a hand-written subset);
#   3. every workload against the project policy k8s/schemas/policy/workloads.json
#      (non-root, read-only root filesystem, dropped capabilities, limits, probes);
#   4. no `set-by-overlay` placeholder left in the rendered ConfigMaps.
# Tools and schemas are fetched once into .cache/k8s-validate (git-ignored); later runs reuse
# them. Needs go (>= 1.26) and python3 with pip. Exits non-zero on any invalid manifest.
#
# Usage: scripts/validate-k8s.sh [overlay-name...]    (default: every overlay)
set -euo pipefail
shopt -s inherit_errexit # $(tool ...) must fail when its build fails

KUSTOMIZE_VERSION=v5.8.2  # v5.8.3 needs go >= 1.27
KUBECONFORM_VERSION=v0.8.0
SCHEMAS_VERSION=1.37.0    # kubernetes-validate on PyPI: schemas for Kubernetes 1.25 to 1.37
# Oldest supported cluster (native preStop sleep is on by default from 1.30) and the newest.
read -r -a K8S_VERSIONS <<<"${K8S_VERSIONS:-1.31.0 1.37.0}"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" # relative paths below keep kubeconform's messages short
cache=.cache/k8s-validate
bin="$root/$cache/bin"
schemas="$cache/schemas/kubernetes-validate-$SCHEMAS_VERSION"
out="$cache/rendered"
started=$SECONDS

step() { printf '==> %s\n' "$*"; }
die() { printf 'validate-k8s: %s\n' "$*" >&2; exit 2; }

scratch=() # temporary folders, removed however the script ends
trap 'rm -rf "${scratch[@]}"' EXIT

command -v go >/dev/null || die "go is required (it builds kustomize and kubeconform)"
command -v python3 >/dev/null || die "python3 with pip is required (it fetches the schemas)"
mkdir -p "$bin" "$out"

# go install into a scratch GOBIN, then rename: the binary's name carries its version, so a
# version bump above rebuilds and an interrupted build never leaves a half-written tool.
# Called as $(tool ...): a subshell, hence its own EXIT trap.
tool() { # name module version
  local name=$1 module=$2 version=$3 target="$bin/$1-$3"
  if [[ ! -x $target ]]; then
    step "building $name $version (once, cached in .cache/k8s-validate)" >&2
    tmp=$(mktemp -d "$root/$cache/gobin.XXXXXX") # GOBIN must be absolute
    trap 'rm -rf "$tmp"' EXIT
    GOBIN=$tmp GOTOOLCHAIN=local go install "$module@$version"
    mv "$tmp/$name" "$target"
  fi
  printf '%s' "$target"
}
kustomize=$(tool kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION")
kubeconform=$(tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION")

# The wheel holds one schema folder per Kubernetes version; each file points into a shared
# 1.5 MB _definitions.json by an absolute URL (https://kubernetes.io/api/...), which kubeconform
# would fetch, and would recompile for every kind. Extract the versions needed and make each
# kind's schema standalone: the definitions it reaches are copied into its own $defs.
missing=()
for v in "${K8S_VERSIONS[@]}"; do
  [[ -f $schemas/v$v-standalone-strict/.complete ]] || missing+=("$v")
done
if ((${#missing[@]})); then
  step "fetching Kubernetes JSON schemas (kubernetes-validate $SCHEMAS_VERSION from PyPI) for ${missing[*]}"
  wheel_dir=$(mktemp -d "$cache/wheel.XXXXXX")
  scratch+=("$wheel_dir")
  python3 -m pip download --quiet --no-deps --no-cache-dir --disable-pip-version-check \
    --only-binary=:all: -d "$wheel_dir" "kubernetes-validate==$SCHEMAS_VERSION"
  python3 - "$wheel_dir" "$schemas" "${missing[@]}" <<'PY'
import glob, json, os, sys, zipfile
wheel_dir, dest, versions = sys.argv[1], sys.argv[2], sys.argv[3:]
(wheel,) = glob.glob(os.path.join(wheel_dir, "*.whl"))
prefix = "kubernetes_validate/kubernetes-json-schema/"
shared = "/api/_definitions.json#/$defs/"
local = "#/$defs/"

def localize(node, reached):
    """Rewrites shared-definition references to local ones, collecting the names reached."""
    if isinstance(node, dict):
        node.pop("$id", None)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith((shared, local)):
            name = ref.split("/")[-1]
            node["$ref"] = local + name
            reached.add(name)
        for value in node.values():
            localize(value, reached)
    elif isinstance(node, list):
        for value in node:
            localize(value, reached)

with zipfile.ZipFile(wheel) as zf:
    for v in versions:
        source = f"{prefix}v{v}-local-strict/"
        names = [n for n in zf.namelist() if n.startswith(source) and n.endswith(".json")]
        if not names:
            sys.exit(f"kubernetes-validate {os.path.basename(wheel)} has no schemas for Kubernetes {v}")
        definitions = json.loads(zf.read(source + "_definitions.json"))["$defs"]
        deps = {}
        for name, definition in definitions.items():
            deps[name] = set()
            localize(definition, deps[name])
        target = os.path.join(dest, f"v{v}-standalone-strict")
        os.makedirs(target, exist_ok=True)
        kinds = 0
        for name in names:
            schema = json.loads(zf.read(name))
            if "x-kubernetes-group-version-kind" not in schema:
                continue  # a sub-object's schema: kubeconform only looks kinds up
            todo = set()
            localize(schema, todo)
            reached = set()
            while todo:
                ref = todo.pop()
                if ref not in reached:
                    reached.add(ref)
                    todo |= deps[ref]
            schema["$defs"] = {ref: definitions[ref] for ref in sorted(reached)}
            with open(os.path.join(target, os.path.basename(name)), "w") as f:
                json.dump(schema, f)
            kinds += 1
        open(os.path.join(target, ".complete"), "w").close()
        print(f"    {kinds} kinds for Kubernetes {v}")
PY
fi

# Every component must be used by some overlay, or it is never validated.
for component in k8s/components/*/; do
  name=$(basename "$component")
  grep -qs "components/$name\$" k8s/overlays/*/kustomization.yaml ||
    die "component $name is not used by any overlay, so it is never built or validated"
done

if (($#)); then overlays=("$@"); else
  overlays=()
  for dir in k8s/overlays/*/; do overlays+=("$(basename "$dir")"); done
fi

failed=()
for overlay in "${overlays[@]}"; do
  rendered="$out/$overlay.yaml"
  step "$overlay: kustomize build k8s/overlays/$overlay"
  if ! "$kustomize" build "k8s/overlays/$overlay" >"$rendered"; then
    failed+=("$overlay (build)")
    continue
  fi
  printf '    %s resources: %s\n' "$(grep -c '^kind: ' "$rendered")" \
    "$(grep '^kind: ' "$rendered" | sort | uniq -c | awk '{printf "%s %s, ", $1, $3}' | sed 's/, $//')"

  for v in "${K8S_VERSIONS[@]}"; do
    step "$overlay: kubeconform -strict, Kubernetes $v (+ KafkaTopic CRD schema)"
    "$kubeconform" -strict -summary -kubernetes-version "$v" \
      -schema-location "$schemas/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
      -schema-location "k8s/schemas/crd/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
      "$rendered" | sed 's/^/    /' || failed+=("$overlay (Kubernetes $v schema)")
  done

  step "$overlay: workload policy (k8s/schemas/policy/workloads.json)"
  "$kubeconform" -summary -schema-location k8s/schemas/policy/workloads.json \
    "$rendered" | sed 's/^/    /' || failed+=("$overlay (policy)")

  if grep -n 'set-by-overlay' "$rendered" | sed 's/^/    /'; then
    printf '    a base placeholder is still set: the overlay must override it\n'
    failed+=("$overlay (placeholder)")
  fi
done

elapsed=$((SECONDS - started))
if ((${#failed[@]})); then
  printf 'FAILED after %ss: %s\n' "$elapsed" "${failed[*]}" >&2
  exit 1
fi
printf 'OK: %s overlay(s) valid (%s), in %ss. Rendered output: %s\n' \
  "${#overlays[@]}" "${overlays[*]}" "$elapsed" "$out"
