"""The Kubernetes manifests and the compose files fit together and fit the binary.

No cluster runs here, so this checks what a cluster would trip over first: the Deployment,
Service and HorizontalPodAutoscaler select each other, the probes hit /healthz on the
container's port, the database URL comes from the Secret, the grace period outlasts the
drain, and every option the manifests pass to `kiln serve` is one it has.
"""
import os
import pathlib
import re
import subprocess

import pytest

yaml = pytest.importorskip("yaml")

ROOT = pathlib.Path(__file__).resolve().parents[2]
K8S = ROOT / "docker" / "k8s"
KILN = os.environ.get("KILN_BIN", str(ROOT / ".build" / "debug" / "kiln"))


def documents(path):
    return {doc["kind"]: doc for doc in yaml.safe_load_all(path.read_text()) if doc}


def serve_options():
    text = subprocess.run([KILN, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"(--[a-z][a-z-]+)", text))


def option(args, name):
    return args[args.index(name) + 1]


def test_deployment_service_and_autoscaler_fit_together():
    docs = documents(K8S / "kiln.yaml")
    deployment, service, hpa = docs["Deployment"], docs["Service"], docs["HorizontalPodAutoscaler"]
    pod = deployment["spec"]["template"]
    labels = pod["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    container = pod["spec"]["containers"][0]
    port_names = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert service["spec"]["ports"][0]["targetPort"] in port_names
    assert option(container["args"], "--port") == str(port_names["http"])
    assert option(container["args"], "--host") == "0.0.0.0"
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz"
        assert container[probe]["httpGet"]["port"] in port_names
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    assert container["resources"]["requests"]["cpu"]          # utilisation is a share of the request
    assert hpa["spec"]["minReplicas"] >= 2


def test_the_database_url_comes_from_the_secret():
    container = documents(K8S / "kiln.yaml")["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    secret = documents(K8S / "secret.example.yaml")["Secret"]
    url = option(container["args"], "--database")
    variable = re.fullmatch(r"\$\((\w+)\)", url).group(1)             # Kubernetes expands $(VAR) in args
    env = {e["name"]: e for e in container["env"]}
    ref = env[variable]["valueFrom"]["secretKeyRef"]
    assert ref["name"] == secret["metadata"]["name"]
    assert secret["stringData"][ref["key"]].startswith("postgres://")


def test_grace_period_outlasts_the_drain_and_liveness_tolerates_it():
    pod = documents(K8S / "kiln.yaml")["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    drain = float(option(container["args"], "--drain-seconds"))
    grace = float(option(container["args"], "--shutdown-grace")) if "--shutdown-grace" in container["args"] else 2.0
    assert pod["terminationGracePeriodSeconds"] > drain + grace
    readiness, liveness = container["readinessProbe"], container["livenessProbe"]
    # Readiness fails fast once draining (the Service stops sending clients well inside the drain) ...
    assert readiness["periodSeconds"] * readiness["failureThreshold"] < drain
    # ... liveness does not fail for the whole drain (a draining pod is not restarted).
    assert liveness["periodSeconds"] * liveness["failureThreshold"] > drain + grace


def test_every_option_the_deployment_files_pass_exists():
    known = serve_options()
    container = documents(K8S / "kiln.yaml")["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    passed = [a for a in container["args"] if a.startswith("--")]
    for compose in ("compose.yml", "compose.cluster.yml"):
        doc = yaml.safe_load((ROOT / "docker" / compose).read_text())
        for service in doc["services"].values():
            passed += [a for a in service.get("command", []) if isinstance(a, str) and a.startswith("--")]
    assert passed and not [a for a in passed if a not in known], sorted(set(passed) - known)
