import { loadConfigFileWith, parseConfigWith, type Config, type Env } from '../config/read.ts';
import { builtinMethods, type MethodRegistry } from './registry.ts';

/** The config of these methods (default: the built-in ones): each `methods.<id>` section is its descriptor's schema. */
export const parseConfig = (raw: unknown, baseDir: string, env: Env = process.env, methods: MethodRegistry = builtinMethods): Config => parseConfigWith(methods.list, raw, baseDir, env);

export const loadConfigFile = (file: string, env: Env = process.env, methods: MethodRegistry = builtinMethods): Config => loadConfigFileWith(methods.list, file, env);
