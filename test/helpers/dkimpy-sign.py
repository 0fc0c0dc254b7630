# Signs one message with dkimpy (Debian's python3-dkim), a DKIM implementation independent of
# mailauth, and checks the result with dkimpy's own verifier before handing it back, so a test
# that sees payd reject it knows the fault is on the verifying side.
#
# stdin: JSON {message (base64), domain, selector, key (PKCS#1 PEM), record (the DKIM TXT
# record), canonicalization ("relaxed/relaxed"...), headers (names to sign)}.
# stdout: the signed message (the DKIM-Signature header prepended), as bytes.
import base64
import json
import sys

import dkim

req = json.load(sys.stdin)
message = base64.b64decode(req["message"])
header, body = req["canonicalization"].encode().split(b"/")
signature = dkim.sign(
    message,
    req["selector"].encode(),
    req["domain"].encode(),
    req["key"].encode(),
    canonicalize=(header, body),
    include_headers=[h.encode() for h in req["headers"]],
    linesep=b"\r\n",
)
signed = signature + message

name = f'{req["selector"]}._domainkey.{req["domain"]}.'.encode()
record = req["record"].encode()


def txt(qname, timeout=5):
    return record if qname == name else None


if not dkim.verify(signed, dnsfunc=txt):
    sys.exit("dkimpy does not verify its own signature")
sys.stdout.buffer.write(signed)
