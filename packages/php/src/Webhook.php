<?php

declare(strict_types=1);

namespace Payd;

use Payd\Exception\WebhookVerificationException;

/** Standard Webhooks verification (https://www.standardwebhooks.com/) of payd's deliveries. */
final class Webhook
{
    /**
     * Checks a webhook's signature against the raw body, exactly as received (file_get_contents('php://input'),
     * never a decoded and re-encoded one), and returns the decoded body with `id` (the webhook-id
     * header: de-duplicate on it; the same id as in the event feed). Pass every secret you accept:
     * during a rotation, the new one and the previous one.
     *
     * @param array<string, string|list<string>> $headers getallheaders(), a framework's headers, or $_SERVER (HTTP_WEBHOOK_ID…)
     * @param string|list<string> $secrets whsec_… secrets
     * @param int $toleranceSeconds how far webhook-timestamp may be from now, either way (Standard Webhooks' 5 minutes)
     * @param int|null $now the current Unix time (tests); default time()
     * @throws WebhookVerificationException
     */
    public static function verify(string $rawBody, array $headers, string|array $secrets, int $toleranceSeconds = 300, ?int $now = null): array
    {
        $secrets = array_values(array_filter(is_string($secrets) ? [$secrets] : $secrets, static fn ($s) => $s !== ''));
        if ($secrets === []) {
            throw new \InvalidArgumentException('Webhook::verify needs at least one webhook secret (whsec_…)');
        }
        $id = self::header($headers, 'webhook-id');
        $timestamp = self::header($headers, 'webhook-timestamp');
        $signatures = self::header($headers, 'webhook-signature');
        if ($id === null || $id === '' || $timestamp === null || $signatures === null || $signatures === '') {
            throw new WebhookVerificationException('missing webhook-id, webhook-timestamp or webhook-signature header');
        }
        if (preg_match('/^\d{1,15}$/', $timestamp) !== 1) {
            throw new WebhookVerificationException('webhook-timestamp is not a Unix time in seconds');
        }
        // A replayed old delivery, or one dated in the future, is refused even when its signature is good.
        if (abs(($now ?? time()) - (int) $timestamp) > $toleranceSeconds) {
            throw new WebhookVerificationException('webhook-timestamp is outside the tolerance (replayed, or a clock is wrong)');
        }

        $signed = "{$id}.{$timestamp}.{$rawBody}";
        $candidates = [];
        foreach (explode(' ', $signatures) as $signature) {
            if (str_starts_with($signature, 'v1,')) {
                $candidates[] = substr($signature, 3);
            }
        }
        $verified = false;
        foreach ($secrets as $secret) {
            $key = base64_decode(str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret, true);
            if ($key === false || $key === '') {
                throw new \InvalidArgumentException('a webhook secret is not whsec_ followed by base64');
            }
            $expected = base64_encode(hash_hmac('sha256', $signed, $key, true));
            foreach ($candidates as $candidate) {
                // hash_equals: the same time whatever the mismatch's position.
                if (hash_equals($expected, $candidate)) {
                    $verified = true;
                }
            }
        }
        if (!$verified) {
            throw new WebhookVerificationException('no webhook-signature matches the body with these secrets');
        }
        try {
            $payload = json_decode($rawBody, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        } catch (\JsonException) {
            throw new WebhookVerificationException('the signed body is not JSON');
        }
        if (!is_array($payload)) {
            throw new WebhookVerificationException('the signed body is not a JSON object');
        }
        return [...$payload, 'id' => $id];
    }

    /** @param array<string, string|list<string>> $headers */
    private static function header(array $headers, string $name): ?string
    {
        $server = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        foreach ($headers as $key => $value) {
            if (strtolower((string) $key) === $name || $key === $server) {
                return is_array($value) ? implode(' ', $value) : (string) $value;
            }
        }
        return null;
    }
}
