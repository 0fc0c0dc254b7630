<?php

declare(strict_types=1);

namespace Payd;

use Payd\Exception\NetworkException;

/** Sends one HTTP request with the curl extension; the Client's default transport. */
final class CurlTransport
{
    /**
     * @param array<string, string> $headers
     * @return array{status: int, headers: array<string, string>, body: string} header names lower-cased
     * @throws NetworkException when no answer arrived
     */
    public function __invoke(string $method, string $url, array $headers, ?string $body, float $timeoutSeconds): array
    {
        $handle = curl_init($url);
        if ($handle === false) {
            throw new NetworkException("{$method} {$url}: curl could not start");
        }
        $received = [];
        $lines = [];
        foreach ($headers as $name => $value) {
            $lines[] = "{$name}: {$value}";
        }
        curl_setopt_array($handle, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => (int) ceil($timeoutSeconds * 1000),
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$received): int {
                $colon = strpos($line, ':');
                if ($colon !== false) {
                    $received[strtolower(trim(substr($line, 0, $colon)))] = trim(substr($line, $colon + 1));
                } elseif (str_starts_with($line, 'HTTP/')) {
                    $received = []; // a new response (after a 100 Continue): its headers only
                }
                return strlen($line);
            },
        ]);
        if ($body !== null) {
            curl_setopt($handle, CURLOPT_POSTFIELDS, $body);
        }
        $text = curl_exec($handle);
        if ($text === false) {
            $error = curl_error($handle);
            curl_close($handle);
            throw new NetworkException("{$method} {$url}: no answer from payd ({$error})");
        }
        $status = (int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
        curl_close($handle);
        return ['status' => $status, 'headers' => $received, 'body' => (string) $text];
    }
}
