/**
 * Mocha root setup: tests run quiet unless SAMSA_LOG_LEVEL says otherwise (worker nodes
 * started by tests inherit the variable).
 */
import { setLogLevel, type LogLevel } from '../src/runtime/logger.js';

process.env.SAMSA_LOG_LEVEL ??= 'silent';
setLogLevel(process.env.SAMSA_LOG_LEVEL as LogLevel);
