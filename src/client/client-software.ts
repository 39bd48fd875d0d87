/**
 * How samsa's clients name themselves to brokers (Kafka's client software name and version,
 * which Kafka's clients send in ApiVersions): in their telemetry requests (KIP-714), where a
 * client metrics subscription's `client_software_name` / `client_software_version` match them.
 * The version is the package's (package.json; a test keeps them equal).
 */
export const CLIENT_SOFTWARE_NAME = 'samsa';
export const CLIENT_SOFTWARE_VERSION = '0.1.0';
