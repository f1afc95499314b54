# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeadm join credentials, and the cluster's kubeadm configuration checked against the IP plan.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the filters in plugins/filter/kubeadm.py.

Facts this rests on (kubeadm and the bootstrap token documentation):
- A bootstrap token is ``[a-z0-9]{6}.[a-z0-9]{16}``: a public token id and a secret. It lives
  in the Secret ``kube-system/bootstrap-token-<id>`` of type ``bootstrap.kubernetes.io/token``;
  kube-controller-manager deletes it once its ``expiration`` (RFC 3339) has passed.
- ``kubeadm join --discovery-token-ca-cert-hash sha256:<hex>`` pins the cluster CA: the hex is
  the SHA-256 of the CA certificate's DER-encoded SubjectPublicKeyInfo.
- kubeadm defaults ``networking.serviceSubnet`` to 10.96.0.0/12 and ``networking.dnsDomain``
  to cluster.local; ``networking.podSubnet`` has no default, and without it
  kube-controller-manager gives nodes no pod range, which flannel's subnet manager needs.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import ipaddress
import re
import secrets
import string
import typing as t

from ansible.errors import AnsibleFilterError

try:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
except ImportError as exc:  # reported by ca_cert_hash when it is used, not at import time
    x509 = None
    CRYPTOGRAPHY_IMPORT_ERROR: ImportError | None = exc
else:
    CRYPTOGRAPHY_IMPORT_ERROR = None


class KubeadmError(AnsibleFilterError):
    """A join credential or cluster configuration is malformed or contradicts the plan."""


# ---------------------------------------------------------------------------------------------
# The CA certificate hash for token discovery
# ---------------------------------------------------------------------------------------------

_PEM_MARKER = b"-----BEGIN"


def _certificate_bytes(ca_data: t.Any) -> bytes:
    """PEM or DER bytes from PEM text, base64 of PEM (kubeconfig certificate-authority-data), or base64 of DER."""
    if isinstance(ca_data, bytes):
        raw = ca_data
    elif isinstance(ca_data, str):
        raw = ca_data.strip().encode("ascii", errors="replace")
    else:
        raise KubeadmError(f"ca_cert_hash needs the CA certificate as text, got {type(ca_data).__name__}")
    if not raw:
        raise KubeadmError("ca_cert_hash got an empty CA certificate")
    if raw.lstrip().startswith(_PEM_MARKER):
        return raw
    try:
        decoded = base64.b64decode(b"".join(raw.split()), validate=True)
    except (binascii.Error, ValueError) as error:
        raise KubeadmError(
            f"ca_cert_hash needs a PEM certificate or base64 (kubeconfig certificate-authority-data); "
            f"the input is neither: {error}"
        ) from error
    if not decoded:
        raise KubeadmError("ca_cert_hash got base64 that decodes to nothing")
    return decoded


def ca_cert_hash(ca_data: t.Any) -> str:
    """``sha256:<hex>`` of the first certificate's SubjectPublicKeyInfo, as kubeadm join pins it."""
    if x509 is None:
        raise KubeadmError(f"ca_cert_hash needs the Python package cryptography: {CRYPTOGRAPHY_IMPORT_ERROR}")
    raw = _certificate_bytes(ca_data)
    try:
        if raw.lstrip().startswith(_PEM_MARKER):
            certificate = x509.load_pem_x509_certificates(raw)[0]
        else:
            certificate = x509.load_der_x509_certificate(raw)
    except ValueError as error:
        raise KubeadmError(f"ca_cert_hash: the input is not an X.509 certificate: {error}") from error
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    digest = hashlib.sha256(spki).hexdigest()
    return f"sha256:{digest}"


# ---------------------------------------------------------------------------------------------
# Bootstrap tokens
# ---------------------------------------------------------------------------------------------

TOKEN_RE = re.compile(r"[a-z0-9]{6}\.[a-z0-9]{16}")
TOKEN_ALPHABET = string.ascii_lowercase + string.digits
TOKEN_SECRET_TYPE = "bootstrap.kubernetes.io/token"
_DURATION_RE = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


def parse_duration(key: str, value: t.Any) -> int:
    """Seconds in a duration as kubeadm writes them (``1h``, ``90m``, ``1h30m``, ``45s``) or an int of seconds."""
    if isinstance(value, bool):
        raise KubeadmError(f"{key} must be a duration like 1h or 30m, got {value!r}")
    if isinstance(value, int):
        seconds = value
    elif isinstance(value, str) and value.strip() and (match := _DURATION_RE.fullmatch(value.strip())):
        hours, minutes, secs = (int(part or 0) for part in match.groups())
        seconds = hours * 3600 + minutes * 60 + secs
    else:
        raise KubeadmError(f"{key} must be a duration like 1h, 30m or 1h30m, got {value!r}")
    if seconds <= 0:
        raise KubeadmError(f"{key} must be longer than 0 (a bootstrap token that never expires is refused), got {value!r}")
    return seconds


def format_rfc3339(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(text: str) -> datetime.datetime | None:
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return None
    return moment if moment.tzinfo else None


def new_bootstrap_token() -> str:
    """A random token from the operating system's CSPRNG."""
    token = "".join(secrets.choice(TOKEN_ALPHABET) for _position in range(22))
    return f"{token[:6]}.{token[6:]}"


def _secret_fields(secret: t.Any) -> dict[str, str]:
    """A bootstrap token Secret's data, decoded; empty when it is not a readable bootstrap token Secret."""
    if not isinstance(secret, dict) or secret.get("type") != TOKEN_SECRET_TYPE:
        return {}
    fields = {}
    for key, value in (secret.get("data") or {}).items():
        try:
            fields[key] = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
            return {}
    return fields


def bootstrap_token(
    existing: t.Any,
    ttl: t.Any = "1h",
    min_remaining: t.Any = "30m",
    now: datetime.datetime | None = None,
) -> dict[str, t.Any]:
    """The token to join with: a still-valid one of ``existing`` Secrets, else a new one.

    ``existing`` is the list of bootstrap token Secrets this collection created (k8s_info
    resources). One is reused when it can authenticate and has at least ``min_remaining``
    left; of several, the one that lives longest. Otherwise a new random token expiring
    ``ttl`` from now is returned, for the caller to create.
    """
    ttl_seconds = parse_duration("ttl", ttl)
    remaining_seconds = parse_duration("min_remaining", min_remaining)
    if remaining_seconds >= ttl_seconds:
        raise KubeadmError(
            f"min_remaining ({min_remaining}) must be shorter than ttl ({ttl}), or no token is ever reused"
        )
    if existing is None:
        existing = []
    if not isinstance(existing, list):
        raise KubeadmError(f"bootstrap_token needs the list of existing token Secrets, got {type(existing).__name__}")
    now = now or datetime.datetime.now(datetime.timezone.utc)
    usable = []
    for secret in existing:
        fields = _secret_fields(secret)
        token = f"{fields.get('token-id')}.{fields.get('token-secret')}"
        expires = parse_rfc3339(fields.get("expiration", ""))
        if (
            TOKEN_RE.fullmatch(token)
            and secret.get("metadata", {}).get("name") == f"bootstrap-token-{fields['token-id']}"
            and fields.get("usage-bootstrap-authentication") == "true"
            and expires is not None
            and (expires - now).total_seconds() >= remaining_seconds
        ):
            usable.append((expires, token))
    if usable:
        expires, token = max(usable)
        return {"token": token, "token_id": token[:6], "expires": format_rfc3339(expires), "reused": True}
    token = new_bootstrap_token()
    expires = now + datetime.timedelta(seconds=ttl_seconds)
    return {"token": token, "token_id": token[:6], "expires": format_rfc3339(expires), "reused": False}


# ---------------------------------------------------------------------------------------------
# The cluster's kubeadm configuration against the IP plan
# ---------------------------------------------------------------------------------------------

KUBEADM_DEFAULT_SERVICE_SUBNET = "10.96.0.0/12"
KUBEADM_DEFAULT_DNS_DOMAIN = "cluster.local"


def _ranges(text: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network] | None:
    """The ranges of a kubeadm subnet value (one per family, comma-separated for dual-stack); None when unparsable."""
    ranges = []
    for part in str(text).split(","):
        try:
            ranges.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            return None
    return ranges


def _compare_range(field: str, cluster_value: t.Any, wanted: str, variable: str) -> str | None:
    """Each range the plan has (one per family, comma-separated on a dual-stack plan) must be the cluster's range of
    that family: IPv4-only Windows nodes can join a dual-stack cluster, dual-stack ones need a dual-stack cluster
    (kubernetes/website dual-stack.md, "Configure IPv4/IPv6 dual-stack": the control plane's ranges of both
    families)."""
    ranges = _ranges(cluster_value)
    wanted_networks = [ipaddress.ip_network(part.strip(), strict=False) for part in wanted.split(",")]
    if ranges is None:
        return f"{field}: cluster has {cluster_value!r}, which is not a CIDR list; Windows nodes need {wanted} ({variable})"
    if not any(network.version == 4 for network in ranges):
        return f"{field}: cluster has only {cluster_value} (no IPv4 range), Windows nodes need {wanted} ({variable})"
    if any(network not in ranges for network in wanted_networks):
        return f"{field}: cluster has {cluster_value}, Windows nodes need {wanted} ({variable})"
    return None


def _cluster_configuration(document: t.Any) -> t.Mapping[str, t.Any]:
    if isinstance(document, str):
        # Imported here: only this function needs YAML, and ansible-core always ships PyYAML.
        import yaml  # pylint: disable=import-outside-toplevel

        try:
            document = yaml.safe_load(document)
        except yaml.YAMLError as error:
            raise KubeadmError(f"kubeadm-config ClusterConfiguration is not YAML: {error}") from error
    if not isinstance(document, dict) or document.get("kind") != "ClusterConfiguration":
        raise KubeadmError(
            "kubeadm-config's ClusterConfiguration must be a YAML document of kind ClusterConfiguration, "
            f"got {type(document).__name__}"
        )
    return document


def kubeadm_networking(cluster_configuration: t.Any) -> dict[str, t.Any]:
    """The cluster settings of a ClusterConfiguration (text or dict), with kubeadm's defaults filled in."""
    configuration = _cluster_configuration(cluster_configuration)
    networking = configuration.get("networking") or {}
    return {
        "kubernetes_version": configuration.get("kubernetesVersion"),
        "control_plane_endpoint": configuration.get("controlPlaneEndpoint") or None,
        "pod_subnet": networking.get("podSubnet") or None,
        "service_subnet": networking.get("serviceSubnet") or KUBEADM_DEFAULT_SERVICE_SUBNET,
        "dns_domain": networking.get("dnsDomain") or KUBEADM_DEFAULT_DNS_DOMAIN,
    }


def cluster_network_differences(
    plan: t.Any, cluster_configuration: t.Any, dns_service_ip: t.Any = None
) -> list[str]:
    """How the cluster's kubeadm networking contradicts the Windows IP plan; empty when it agrees.

    ``plan`` is the normalized plan (the ``plan_cluster`` fact); ``cluster_configuration`` the
    ClusterConfiguration of kube-system/kubeadm-config (text or dict); ``dns_service_ip`` the
    clusterIP of kube-system/kube-dns, when the cluster has that Service.
    """
    if not isinstance(plan, dict) or "cluster_cidr" not in plan or "service_cidr" not in plan:
        raise KubeadmError("cluster_network_differences needs the normalized IP plan (the plan_cluster fact)")
    networking = kubeadm_networking(cluster_configuration)
    differences = []
    if networking["pod_subnet"]:
        difference = _compare_range(
            "networking.podSubnet", networking["pod_subnet"], plan["cluster_cidr"], "kubewin_cluster_cidr"
        )
        if difference:
            differences.append(difference)
    elif plan.get("l2bridge_routing") == "flannel":
        differences.append(
            f"networking.podSubnet: cluster has none (kube-controller-manager then gives nodes no pod range, "
            f"which flannel needs), Windows nodes need {plan['cluster_cidr']} (kubewin_cluster_cidr)"
        )
    difference = _compare_range(
        "networking.serviceSubnet", networking["service_subnet"], plan["service_cidr"], "kubewin_service_cidr"
    )
    if difference:
        differences.append(difference)
    if plan.get("cluster_domain") and networking["dns_domain"] != plan["cluster_domain"]:
        differences.append(
            f"networking.dnsDomain: cluster has {networking['dns_domain']}, Windows nodes need "
            f"{plan['cluster_domain']} (kubewin_cluster_domain)"
        )
    if dns_service_ip and plan.get("dns_service_ip") and str(dns_service_ip) != plan["dns_service_ip"]:
        differences.append(
            f"kube-system/kube-dns clusterIP: cluster has {dns_service_ip}, Windows nodes need "
            f"{plan['dns_service_ip']} (kubewin_dns_service_ip)"
        )
    return differences
