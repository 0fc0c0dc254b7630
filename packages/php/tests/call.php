<?php
// Calls one method of the library and prints the outcome as JSON, for the tests that drive it
// against a real payd (the payd repository's test/integration/client-php.test.ts):
//
//   PAYD_URL=… PAYD_CLIENT_ID=… PAYD_CLIENT_SECRET=… php tests/call.php createIntent '[{"amount":"10.00","currency":"UPI","order_id":"A"}]'
//   php tests/call.php Webhook::verify '[rawBody, headers, secrets, tolerance, now]'
//
// Prints {"ok": result} or {"error": {class, status, code, detail, errors, retryAfter}}, "sent":
// the requests the client made, and "done": the calls that succeeded. PAYD_OPTIONS (JSON) holds
// the Client's options, and "lose_answers": n, whose transport drops the first n answers after
// payd received the request; PAYD_TIMES makes the same call that many times in a row.
declare(strict_types=1);

use Payd\Client;
use Payd\CurlTransport;
use Payd\Exception\ApiException;
use Payd\Exception\NetworkException;
use Payd\Webhook;

require dirname(__DIR__) . '/autoload.php';

[, $method, $args] = $argv + [null, null, '[]'];
$args = json_decode($args, true, 512, JSON_THROW_ON_ERROR);
$options = json_decode(getenv('PAYD_OPTIONS') ?: '{}', true, 512, JSON_THROW_ON_ERROR);
$sent = [];
$done = 0;
$lose = (int) ($options['lose_answers'] ?? 0);
unset($options['lose_answers']);
$curl = new CurlTransport();
$options['transport'] = static function (string $verb, string $url, array $headers, ?string $body, float $timeout) use ($curl, &$sent, &$lose): array {
    $sent[] = $verb . ' ' . parse_url($url, PHP_URL_PATH);
    $res = $curl($verb, $url, $headers, $body, $timeout);
    if ($lose-- > 0) {
        throw new NetworkException("{$verb} {$url}: no answer from payd (connection reset)");
    }
    return $res;
};

try {
    if ($method === 'Webhook::verify') {
        $result = Webhook::verify(...$args);
    } else {
        $client = new Client((string) getenv('PAYD_URL'), (string) getenv('PAYD_CLIENT_ID'), (string) getenv('PAYD_CLIENT_SECRET'), $options);
        for ($i = 0; $i < (int) (getenv('PAYD_TIMES') ?: 1); $i++) {
            $result = $client->{$method}(...$args);
            if ($result instanceof Generator) {
                $result = iterator_to_array($result, false);
            }
            $done++;
        }
    }
    $out = ['ok' => $result];
} catch (ApiException $e) {
    $out = ['error' => ['class' => get_class($e), 'status' => $e->status, 'code' => $e->errorCode, 'detail' => $e->detail, 'errors' => $e->errors, 'retryAfter' => $e->retryAfter, 'message' => $e->getMessage()]];
} catch (Throwable $e) {
    $out = ['error' => ['class' => get_class($e), 'message' => $e->getMessage()]];
}
echo json_encode([...$out, 'sent' => $sent, 'done' => $done], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION), "\n";
