#!/bin/sh
# A private CA and the certificates of leadflow's gRPC hop (distribution service, gateways, CLI),
# made with openssl. For the compose stack or a first deployment; with a PKI of your own
# (cert-manager, Vault), issue the same three certificates there (deploy/README.md, "gRPC TLS").
#
#   deploy/tls/make-certs.sh [--days N] [--server-names NAME,...] OUT_DIR
#
# OUT_DIR/ca/ca.crt, ca.key   the CA: ca.key signs the certificates below; keep it off the servers
# OUT_DIR/distribution/       server certificate, for LEADFLOW_GRPC_TLS_CERT/_KEY/_CLIENT_CA
# OUT_DIR/gateway/            client certificate named leadflow-gateway, for LEADFLOW_DISTRIBUTION_TLS_*
# OUT_DIR/admin/              client certificate named leadflow-admin, for the CLI (LEADFLOW_ADMIN_TLS_*)
# Each of the three holds tls.crt, tls.key and ca.crt: the layout of a Kubernetes TLS Secret.
#
# Run it again to renew: an existing CA in OUT_DIR/ca is kept, so the new certificates are trusted
# wherever the old ones were. Running processes pick them up within a minute (a distribution
# service at once on SIGHUP).
#
#   --days N                 validity of the three certificates (default 365; the CA gets 10 years)
#   --server-names a,b,...   names and addresses the gateways and the CLI dial the distribution
#                            service by (default: distribution,leadflow-distribution,localhost,127.0.0.1,::1)
set -eu

days=365
server_names=distribution,leadflow-distribution,localhost,127.0.0.1,::1
usage() {
  echo "usage: $0 [--days N] [--server-names NAME,...] OUT_DIR" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --days) [ $# -ge 2 ] || usage; days=$2; shift 2 ;;
    --server-names) [ $# -ge 2 ] || usage; server_names=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || usage
case "$days" in '' | *[!0-9]*) echo "$0: --days must be a whole number" >&2; exit 2 ;; esac
out=$1
command -v openssl >/dev/null || { echo "$0: openssl is required" >&2; exit 1; }

umask 077
mkdir -p "$out/ca"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

new_key() {
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
}

if [ -f "$out/ca/ca.key" ] && [ -f "$out/ca/ca.crt" ]; then
  echo "keeping the CA in $out/ca"
else
  new_key "$out/ca/ca.key"
  openssl req -x509 -new -key "$out/ca/ca.key" -sha256 -days 3650 -subj "/CN=leadflow gRPC CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$out/ca/ca.crt"
  echo "made a new CA in $out/ca"
fi

# issue NAME CN USAGE SUBJECT_ALT_NAMES
issue() {
  dir="$out/$1"
  mkdir -p "$dir"
  new_key "$work/$1.key"
  openssl req -new -key "$work/$1.key" -subj "/CN=$2" -out "$work/$1.csr"
  cat >"$work/$1.ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=$3
subjectAltName=$4
EOF
  openssl x509 -req -in "$work/$1.csr" -CA "$out/ca/ca.crt" -CAkey "$out/ca/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days "$days" -sha256 -extfile "$work/$1.ext" \
    -out "$work/$1.crt" 2>/dev/null
  # Made aside, then moved into place: an interrupted run leaves no half-written file.
  cp "$out/ca/ca.crt" "$work/$1.ca"
  mv "$work/$1.key" "$dir/tls.key"
  mv "$work/$1.crt" "$dir/tls.crt"
  mv "$work/$1.ca" "$dir/ca.crt"
  echo "issued $dir/tls.crt ($2, $days days)"
}

server_alt_names=
old_ifs=$IFS
IFS=,
for name in $server_names; do
  case "$name" in
    '') continue ;;
    *:*) entry="IP:$name" ;;      # IPv6
    *[!0-9.]*) entry="DNS:$name" ;;
    *) entry="IP:$name" ;;        # IPv4
  esac
  server_alt_names="${server_alt_names:+$server_alt_names,}$entry"
done
IFS=$old_ifs
[ -n "$server_alt_names" ] || { echo "$0: --server-names is empty" >&2; exit 2; }

issue distribution leadflow-distribution serverAuth "$server_alt_names"
issue gateway leadflow-gateway clientAuth "DNS:leadflow-gateway"
issue admin leadflow-admin clientAuth "DNS:leadflow-admin"
