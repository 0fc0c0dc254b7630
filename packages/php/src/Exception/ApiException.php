<?php

declare(strict_types=1);

namespace Payd\Exception;

/** payd answered with an error: its HTTP status, code, detail and, for INVALID_REQUEST, errors[]. */
final class ApiException extends PaydException
{
    /**
     * @param string $errorCode one of the API's codes (INTENT_NOT_FOUND, ORDER_ID_CONFLICT, …); HTTP_<status> when the body was not payd's JSON (a proxy's page)
     * @param list<array{field: string, message: string}> $errors
     * @param int|null $retryAfter seconds the server asked to wait (Retry-After on 429 and 503), when it said
     */
    public function __construct(
        public readonly int $status,
        public readonly string $errorCode,
        public readonly string $detail,
        public readonly array $errors = [],
        public readonly ?int $retryAfter = null,
    ) {
        parent::__construct("{$errorCode}: {$detail}", $status);
    }
}
