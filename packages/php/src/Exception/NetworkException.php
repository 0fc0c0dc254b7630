<?php

declare(strict_types=1);

namespace Payd\Exception;

/** No answer from payd (connection refused or reset, DNS, timeout): the request may or may not have been processed. */
final class NetworkException extends PaydException
{
}
