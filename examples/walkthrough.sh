#!/usr/bin/env bash
# The README's partner flow, end to end, against a running development server:
# carriers, a practitioner, a patient, shipping prices, the formulary, an order, the sandbox
# shipping it, a refill, and a webhook endpoint registered and tested.
#
#   BASE=http://127.0.0.1:3000 KEY=dev_… CLINIC=… examples/walkthrough.sh
#
# BASE, KEY and CLINIC are the shell variables every page of the README and docs/ uses (what the
# server printed at its first start). WEBHOOK_URL (default http://127.0.0.1:${RECEIVER_PORT:-4000}/webhooks, where
# examples/receiver.mjs listens; RECEIVER_PORT moves the receiver) is the endpoint it registers.
#
# Safe to run again and again: each run adds a practitioner, a patient and two orders (the API
# allows the same practitioner twice), and reuses the webhook endpoint already registered for
# WEBHOOK_URL (its secret was printed by the run that registered it). It needs curl and node (not
# jq), and stops with a non-zero status at the first answer that is not 2xx, showing it.
set -euo pipefail

BASE=${BASE:-http://127.0.0.1:${PORT:-3000}}
: "${KEY:?set KEY to the x-api-key the server printed (README, Quick start)}"
: "${CLINIC:?set CLINIC to the clinic_id the server printed (README, Quick start)}"
WEBHOOK_URL=${WEBHOOK_URL:-http://127.0.0.1:${RECEIVER_PORT:-4000}/webhooks}

H=(-H "x-api-key: $KEY" -H 'Content-Type: application/json' -H 'Accept: application/json')

# call METHOD PATH [BODY]: prints the answer's body; exits 1 showing it when the status is not 2xx.
call() {
  local method=$1 path=$2 body=${3:-} answer status
  local args=(-sS -X "$method" "${H[@]}" -w '\n%{http_code}' "$BASE$path")
  if [[ -n $body ]]; then args+=(-d "$body"); fi
  answer=$(curl "${args[@]}") || { echo "$method $path: no answer from $BASE" >&2; exit 1; }
  status=${answer##*$'\n'}
  answer=${answer%$'\n'*}
  if [[ $status != 2?? ]]; then
    echo "$method $path answered $status: $answer" >&2
    exit 1
  fi
  printf '%s\n' "$answer"
}

# field JSON PATH: prints the value at PATH (dots, array indexes as numbers: data.carriers.0.id);
# exits 1 when it is missing or null.
field() {
  node -e '
    const [text, path] = process.argv.slice(1);
    let value = JSON.parse(text);
    for (const key of path.split(".")) value = value?.[key];
    if (value === undefined || value === null) {
      console.error(`no ${path} in ${text}`);
      process.exit(1);
    }
    console.log(typeof value === "object" ? JSON.stringify(value) : String(value));
  ' "$1" "$2"
}

# show JSON EXPRESSION: prints a JavaScript expression of the answer `a` (for the summaries).
show() {
  node -e 'const a = JSON.parse(process.argv[1]); console.log(eval(process.argv[2]));' "$1" "$2"
}

step() { printf '\n== %s\n' "$*"; }

step "Carriers"
answer=$(call GET /api/external/carriers)
show "$answer" 'a.data.carriers.map((c) => `${c.id} (${c.name})`).join(", ")'

step "Create a practitioner"
answer=$(call POST /api/external/practitioner '{
  "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com",
  "npi": "1234567893", "is_veterinarian": false, "assigned_clinic": "'"$CLINIC"'",
  "address_line_1": "1 Main St", "city": "Austin", "state_code": "TX", "zip_code": "78701"}')
PRACTITIONER=$(field "$answer" data.practitioner_id)
echo "PRACTITIONER=$PRACTITIONER"

step "Register a patient"
answer=$(call POST /api/external/patient '{
  "first_name": "Grace", "last_name": "Hopper", "gender": "female", "dob": "1980-12-09",
  "practitioner_id": "'"$PRACTITIONER"'", "assigned_clinic": "'"$CLINIC"'",
  "contacts": [{"key": "email", "value": "grace@example.com"}, {"key": "phone", "value": "555-555-0101"}],
  "addresses": [{"addressLine1": "2 Elm St", "city": "Sacramento", "state": "CA", "postalCode": "95814"}]}')
PATIENT=$(field "$answer" data.patient_id)
echo "PATIENT=$PATIENT"

step "Price FedEx's services for the patient"
answer=$(call GET "/api/external/carriers/fedex/services?patientId=$PATIENT")
show "$answer" 'a.data.map((s) => `${s.id}: $${s.totalCost}`).join(", ") + ` (to ${a.patientState})`'

step "The clinic's formulary"
answer=$(call GET /api/external/medications)
show "$answer" 'a.data.items.map((m) => m.name).join(", ")'

step "Order Semaglutide with one refill"
answer=$(call POST /api/external/medication-order '{
  "patient_id": "'"$PATIENT"'", "practitioner_id": "'"$PRACTITIONER"'", "clinic_id": "'"$CLINIC"'",
  "carrier_id": "fedex", "service_id": "fedex_ground",
  "medication_requests": [{
    "medication": "Semaglutide", "dose": "0.25mg", "quantity": 1, "refills": "1",
    "direction": "Inject 0.25 mg once weekly", "days_supply": 28}]}')
ORDER=$(field "$answer" data.medication_request_id)
echo "ORDER=$ORDER"

step "Ship it in the sandbox"
answer=$(call POST "/api/external/sandbox/medication-order/$ORDER/advance" '{"to": "shipped"}')
STATUS=$(field "$answer" data.status)
TRACKING=$(field "$answer" data.tracking_number)
echo "status $STATUS, tracking number $TRACKING"

step "Request a refill"
answer=$(call POST /api/external/refill-request '{"medication_request_id": "'"$ORDER"'"}')
REFILL_ID=$(field "$answer" data.refill_request_id)
REFILL_ORDER=$(field "$answer" data.medication_order_id)
echo "REFILL_ID=$REFILL_ID REFILL_ORDER=$REFILL_ORDER"
answer=$(call GET "/api/external/refill-request/$REFILL_ID")
show "$answer" '`refill request ${a.data.status}, its order ${a.data.medication_order_status}`'
answer=$(call GET "/api/external/medication-order/$ORDER")
show "$answer" '`order ${a.data.status}, refills ${JSON.stringify(a.data.refills)}`'

step "Webhook endpoint $WEBHOOK_URL"
answer=$(call GET /api/external/webhook)
WEBHOOK_ID=$(node -e '
  const [text, url] = process.argv.slice(1);
  const normal = (u) => Object.assign(new URL(u), { hash: "" }).href;
  const found = JSON.parse(text).data.find((w) => normal(w.webhook_url) === normal(url));
  console.log(found ? found.webhook_id : "");
' "$answer" "$WEBHOOK_URL")
if [[ -n $WEBHOOK_ID ]]; then
  echo "already registered: WEBHOOK_ID=$WEBHOOK_ID (its secret was printed when it was registered)"
else
  answer=$(call POST /api/external/webhook '{"clinic_id": "'"$CLINIC"'", "webhook_url": "'"$WEBHOOK_URL"'"}')
  WEBHOOK_ID=$(field "$answer" data.webhook_id)
  echo "registered: WEBHOOK_ID=$WEBHOOK_ID"
  WEBHOOK_SECRET=$(field "$answer" data.secret)
  echo "WEBHOOK_SECRET=$WEBHOOK_SECRET   (shown only now: keep it)"
fi

step "Send it a test event"
answer=$(call POST /api/external/webhook/test '{"clinic_id": "'"$CLINIC"'", "webhook_id": "'"$WEBHOOK_ID"'"}')
field "$answer" message
DELIVERED=$(field "$answer" data.delivered)
if [[ $DELIVERED != true ]]; then
  RECEIVER_PORT=$(node -e 'const u = new URL(process.argv[1]); console.log(u.port || (u.protocol === "https:" ? 443 : 80))' "$WEBHOOK_URL")
  echo "(start the receiver to get events: RECEIVER_PORT=$RECEIVER_PORT WEBHOOK_SECRET=whsec_… node examples/receiver.mjs; then run this again)"
fi

printf '\nDone: ORDER=%s REFILL_ORDER=%s WEBHOOK_ID=%s\n' "$ORDER" "$REFILL_ORDER" "$WEBHOOK_ID"
