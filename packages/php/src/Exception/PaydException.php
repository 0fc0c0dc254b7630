<?php

declare(strict_types=1);

namespace Payd\Exception;

/** Base of everything this library throws, so one catch (PaydException $e) catches them all. */
class PaydException extends \RuntimeException
{
}
