<?php

declare(strict_types=1);

namespace Payd;

use Payd\Exception\ApiException;
use Payd\Exception\NetworkException;

/**
 * payd's merchant API. Every method is one call (the generators one call per page) and returns
 * the decoded JSON answer as an array; failures throw ApiException (with payd's code) or
 * NetworkException. Amounts come back as floats: use the `<field>_exact` string when present.
 */
final class Client
{
    private const MAX_BACKOFF_MS = 5000;

    private readonly string $baseUrl;
    private readonly float $timeout;
    private readonly int $maxRetries;
    private readonly int $maxRetryAfter;
    private readonly int $retryDelayMs;
    /** @var callable(string, string, array<string, string>, ?string, float): array{status: int, headers: array<string, string>, body: string} */
    private $transport;

    /**
     * @param string $baseUrl your payd's address (its server.publicUrl), e.g. https://pay.example.com
     * @param string $clientId from `payd merchant create`
     * @param string $clientSecret backend only: never put it in a page or an app
     * @param array{timeout?: float, max_retries?: int, max_retry_after?: int, retry_delay_ms?: int, transport?: callable} $options
     *   timeout: seconds per attempt (30); max_retries: retries of a call that may be retried (2; 0 turns
     *   retrying off); max_retry_after: the longest Retry-After waited out (10 s), a longer one is thrown;
     *   retry_delay_ms: first backoff step without a Retry-After (250, doubled per retry, jittered);
     *   transport: sends one request (default CurlTransport)
     */
    public function __construct(string $baseUrl, private readonly string $clientId, private readonly string $clientSecret, array $options = [])
    {
        if ($baseUrl === '' || $clientId === '' || $clientSecret === '') {
            throw new \InvalidArgumentException('Payd\Client needs baseUrl, clientId and clientSecret');
        }
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->timeout = (float) ($options['timeout'] ?? 30.0);
        $this->maxRetries = (int) ($options['max_retries'] ?? 2);
        $this->maxRetryAfter = (int) ($options['max_retry_after'] ?? 10);
        $this->retryDelayMs = (int) ($options['retry_delay_ms'] ?? 250);
        $this->transport = $options['transport'] ?? new CurlTransport();
    }

    /**
     * Creates an intent, or returns the one this order_id already has (same amount and currency;
     * another is 409 ORDER_ID_CONFLICT). The client relies on that to retry a create whose
     * answer was lost: the retry can never make a second intent. Pass amounts as decimal
     * strings ("100.50"): a float may not be the amount you meant.
     *
     * @param array{amount?: string|int|float, price?: array{amount: string|int|float, currency: string}, currency: string, order_id: string, return_url?: string} $input
     */
    public function createIntent(array $input): array
    {
        return $this->call('POST', '/api/v1/intents/create-payment', body: $input, replayable: true);
    }

    public function getIntent(string $intentId): array
    {
        return $this->call('GET', self::intentPath($intentId), replayable: true);
    }

    /**
     * One page of the list; `cursor` is the previous page's next_cursor.
     *
     * @param array{status?: string, currency?: string, order_id?: string, created_from?: string, created_to?: string, limit?: int, cursor?: string} $query
     */
    public function listIntentsPage(array $query = []): array
    {
        return $this->call('GET', '/api/v1/intents', query: $query, replayable: true);
    }

    /**
     * Every intent matching the filters, newest first, fetched a page (`limit`, default 20) at a time.
     *
     * @param array{status?: string, currency?: string, order_id?: string, created_from?: string, created_to?: string, limit?: int} $query
     * @return \Generator<int, array>
     */
    public function listIntents(array $query = []): \Generator
    {
        $cursor = null;
        do {
            $page = $this->listIntentsPage($cursor === null ? $query : [...$query, 'cursor' => $cursor]);
            yield from $page['data'];
            $cursor = $page['has_more'] ? $page['next_cursor'] : null;
        } while ($cursor !== null);
    }

    /** Cancels a pending intent (a canceled one is returned unchanged; settled or expired: 409 INTENT_NOT_CANCELABLE). */
    public function cancelIntent(string $intentId): array
    {
        return $this->call('POST', self::intentPath($intentId) . '/cancel', replayable: false);
    }

    /** Settles the intent with a payment payd holds on it (payment.held). */
    public function acceptPayment(string $intentId, string $transactionHash): array
    {
        return $this->call('POST', self::paymentPath($intentId, $transactionHash) . '/accept', replayable: false);
    }

    /** Records that you returned a held payment yourself: payd moves no money. */
    public function markRefunded(string $intentId, string $transactionHash): array
    {
        return $this->call('POST', self::paymentPath($intentId, $transactionHash) . '/refunded', replayable: false);
    }

    public function getWebhookEndpoint(): array
    {
        return $this->call('GET', '/api/v1/webhook-endpoint', replayable: true);
    }

    /** Where payd sends your webhooks; null removes it. */
    public function setWebhookEndpoint(?string $url): array
    {
        return $this->call('PUT', '/api/v1/webhook-endpoint', body: ['url' => $url], replayable: false);
    }

    /** A new signing secret, shown this once; the previous one signs too until previous_valid_until. */
    public function rotateWebhookSecret(): array
    {
        return $this->call('POST', '/api/v1/webhook-endpoint/rotate-secret', replayable: false);
    }

    /**
     * One page of the event feed; pass its next_cursor as `after` next time.
     *
     * @param array{after?: string, type?: string, limit?: int} $query
     */
    public function eventsPage(array $query = []): array
    {
        return $this->call('GET', '/api/v1/events', query: $query, replayable: true);
    }

    /**
     * Every event after `after` (an event id), in the order payd wrote them, until the feed is
     * caught up. Store each event's id once handled and pass it as `after` next time: the feed
     * resumes there, missing and repeating nothing.
     *
     * @param array{after?: string, type?: string, limit?: int} $query
     * @return \Generator<int, array>
     */
    public function events(array $query = []): \Generator
    {
        for (;;) {
            $page = $this->eventsPage($query);
            yield from $page['data'];
            if (!$page['has_more'] || $page['next_cursor'] === null) {
                return;
            }
            $query['after'] = $page['next_cursor'];
        }
    }

    /**
     * Creates an open intent: the customer picks one of `methods` (a list of method ids, or
     * "all") on the checkout; send them to checkout_url. Until then currency, amount and
     * pay_amount are null and `options` lists the choice. Give a fiat `price`, or `amount` as a
     * price in INR. Idempotent on order_id like createIntent (the same price and methods return
     * the intent), so it is retried the same way.
     *
     * @param array{amount?: string|int|float, price?: array{amount: string|int|float, currency: string}, methods: string|list<string>, order_id: string, return_url?: string} $input
     */
    public function createOpenIntent(array $input): array
    {
        return $this->call('POST', '/api/v1/intents/create-payment', body: $input, replayable: true);
    }

    /**
     * Creates a payment link. Not idempotent (each call makes another link), so it is never sent
     * again after a network error or a 5xx: list the links to see whether it was made.
     *
     * @param array{title: string, amount?: string|int|float, price?: array{amount: string|int|float, currency: string}, customer_amount?: array{min: string|int|float, max: string|int|float, currency?: string}, methods?: list<string>, single_use?: bool, expires_at?: string} $input
     *   title and exactly one of amount (INR), price and customer_amount
     */
    public function createPaymentLink(array $input): array
    {
        return $this->call('POST', '/api/v1/payment-links', body: $input, replayable: false);
    }

    /**
     * Your links, newest first: `limit` of them (default 50, at most 100; the API has no further pages).
     *
     * @param array{limit?: int} $query
     * @return list<array>
     */
    public function listPaymentLinks(array $query = []): array
    {
        return $this->call('GET', '/api/v1/payment-links', query: $query, replayable: true)['data'];
    }

    /** A link by its link_id or its slug (the last part of its url); another merchant's is 404 NOT_FOUND. */
    public function getPaymentLink(string $linkId): array
    {
        return $this->call('GET', self::linkPath($linkId), replayable: true);
    }

    /** Turns the link off (its page takes nothing; status "inactive"). Sets a state, so it is retried like a read. */
    public function deactivatePaymentLink(string $linkId): array
    {
        return $this->call('POST', self::linkPath($linkId) . '/deactivate', replayable: true);
    }

    /** Turns the link on again; retried like deactivatePaymentLink. */
    public function activatePaymentLink(string $linkId): array
    {
        return $this->call('POST', self::linkPath($linkId) . '/activate', replayable: true);
    }

    private static function linkPath(string $linkId): string
    {
        return '/api/v1/payment-links/' . rawurlencode($linkId);
    }

    private static function intentPath(string $intentId): string
    {
        return '/api/v1/intents/' . rawurlencode($intentId);
    }

    private static function paymentPath(string $intentId, string $transactionHash): string
    {
        return self::intentPath($intentId) . '/payments/' . rawurlencode($transactionHash);
    }

    /**
     * One API call with the retry rule. `replayable`: safe to send again when the answer was
     * lost or a 5xx (reads, the intent creates, idempotent on order_id, and a link's deactivate
     * or activate, which set a state). A 429 is refused before payd reads the request, so any
     * call may be sent again after one.
     */
    private function call(string $method, string $path, array $query = [], ?array $body = null, bool $replayable = false): array
    {
        $url = $this->baseUrl . $path;
        $query = array_filter($query, static fn ($v) => $v !== null);
        if ($query !== []) {
            $url .= '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        }
        $headers = ['accept' => 'application/json', 'x-client-id' => $this->clientId, 'x-client-secret' => $this->clientSecret];
        $payload = null;
        if ($body !== null) {
            $headers['content-type'] = 'application/json';
            $payload = json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION);
        }
        for ($attempt = 0; ; $attempt++) {
            $canRetry = $attempt < $this->maxRetries;
            try {
                $res = ($this->transport)($method, $url, $headers, $payload, $this->timeout);
            } catch (NetworkException $e) {
                if ($replayable && $canRetry) {
                    $this->sleepMs($this->backoffMs($attempt));
                    continue;
                }
                throw $e;
            }
            if ($res['status'] >= 200 && $res['status'] < 300) {
                try {
                    return json_decode($res['body'], true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
                } catch (\JsonException) {
                    throw new ApiException($res['status'], "HTTP_{$res['status']}", 'the answer is not JSON (is baseUrl payd?)');
                }
            }
            $error = self::apiError($res);
            $retryable = $res['status'] === 429 || ($replayable && $res['status'] >= 500);
            if (!$retryable || !$canRetry) {
                throw $error;
            }
            if ($error->retryAfter !== null) {
                // A longer wait than the caller allows is theirs to decide (an AMOUNT_UNAVAILABLE may say hours).
                if ($error->retryAfter > $this->maxRetryAfter) {
                    throw $error;
                }
                $this->sleepMs($error->retryAfter * 1000);
            } else {
                $this->sleepMs($this->backoffMs($attempt));
            }
        }
    }

    /** @param array{status: int, headers: array<string, string>, body: string} $res */
    private static function apiError(array $res): ApiException
    {
        $retryAfter = self::parseRetryAfter($res['headers']['retry-after'] ?? null);
        try {
            $parsed = json_decode($res['body'], true, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            $parsed = null;
        }
        if (is_array($parsed) && is_string($parsed['code'] ?? null)) {
            $errors = is_array($parsed['errors'] ?? null) ? array_values($parsed['errors']) : [];
            return new ApiException($res['status'], $parsed['code'], is_string($parsed['detail'] ?? null) ? $parsed['detail'] : '', $errors, $retryAfter);
        }
        // Not payd's error body: a proxy or load balancer answered.
        return new ApiException($res['status'], "HTTP_{$res['status']}", 'error without a payd body', [], $retryAfter);
    }

    /** Retry-After as seconds: delta-seconds or an HTTP date. */
    public static function parseRetryAfter(?string $value, ?int $now = null): ?int
    {
        if ($value === null || trim($value) === '') {
            return null;
        }
        if (ctype_digit(trim($value))) {
            return (int) trim($value);
        }
        $at = strtotime($value);
        return $at === false ? null : max(0, $at - ($now ?? time()));
    }

    private function backoffMs(int $attempt): int
    {
        return random_int(0, (int) min(self::MAX_BACKOFF_MS, $this->retryDelayMs * 2 ** $attempt));
    }

    private function sleepMs(int $ms): void
    {
        usleep($ms * 1000);
    }
}
