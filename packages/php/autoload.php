<?php
// For a project without Composer (a WHMCS module, a plain PHP site): require this file once.
// It maps the Payd\ namespace to src/, as composer.json's PSR-4 entry does for Composer.
declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Payd\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 5)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
