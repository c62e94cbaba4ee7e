#!/usr/bin/env bash
# A short wrk check of WORKERS (bench/README.md, "WORKERS"): starts the server with WORKERS=$1 on a
# fresh data directory, runs two rounds of 6 s of `wrk -t1 -c32` on /loan (a durable decision) and
# /hello, prints requests/s, p99, max and non-2xx answers, stops the server and counts the stored
# decisions. Usage: bench/workers_wrk.sh WORKERS [LABEL]; TARGETS="loan" for loan only.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:?WORKERS}
label=${2:-w$workers}
port=${BENCH_PORT:-18811}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
envelope() {
  printf '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
  printf 'xmlns:soap="http://soap.example.com/"><soapenv:Body>%s</soapenv:Body></soapenv:Envelope>' "$1"
}
for target in loan hello; do
  if [ "$target" = loan ]; then
    body=$(envelope '<soap:processLoanApplication><arg0><applicantName>Bench</applicantName><requestedAmount>1000</requestedAmount></arg0></soap:processLoanApplication>')
  else
    body=$(envelope '<soap:getHelloWorld><arg0>Bench</arg0></soap:getHelloWorld>')
  fi
  printf 'wrk.method = "POST"\nwrk.body = [==[%s]==]\nwrk.headers["Content-Type"] = "text/xml; charset=utf-8"\nwrk.headers["SOAPAction"] = %s\n' \
    "$body" "'\"\"'" >"$tmp/$target.lua"
done
mkdir "$tmp/data"
WORKERS=$workers DATA_DIR="$tmp/data" PORT=$port HOST=127.0.0.1 \
  deno run --allow-all main.ts >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
sleep 1
for round in 1 2; do
  for target in ${TARGETS:-loan hello}; do
    wrk --latency -t1 -c32 -d6s -s "$tmp/$target.lua" "http://127.0.0.1:$port/$target" >"$tmp/out" 2>&1
    rps=$(awk '/^Requests\/sec/ {print $2}' "$tmp/out")
    p99=$(awk '$1 == "99%" {print $2}' "$tmp/out")
    max=$(awk '$1 == "Latency" {print $4}' "$tmp/out")
    non=$(awk '/Non-2xx/ {print $NF}' "$tmp/out")
    echo "$label round $round $target: $rps req/s, p99 $p99, max $max, non-2xx ${non:-0}"
  done
done
kill -TERM "$pid"
wait "$pid" || true
python3 -c "import sqlite3,sys; print('$label stored decisions', sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM loan_history').fetchone()[0])" "$tmp/data/collab.db"
