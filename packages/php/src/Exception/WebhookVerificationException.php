<?php

declare(strict_types=1);

namespace Payd\Exception;

/** A webhook that must not be trusted: missing headers, a bad or unknown signature, or a timestamp outside the tolerance. */
final class WebhookVerificationException extends PaydException
{
}
