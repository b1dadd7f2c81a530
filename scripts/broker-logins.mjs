// The services' broker logins, one each, allowed only their own queues and the exchanges they use
// (brokerPermissions in packages/messaging/src/broker-logins.ts). After `pnpm build`:
//
//   node scripts/broker-logins.mjs apply         make or update them with rabbitmqctl, run where it reaches the broker
//   node scripts/broker-logins.mjs definitions   print them as a RabbitMQ definitions document, for a broker that loads one at boot
//
// Users feedback-api, feedback-authority and feedback-webhook-worker; passwords from
// API_AMQP_PASSWORD, AUTHORITY_AMQP_PASSWORD and WEBHOOK_WORKER_AMQP_PASSWORD; RABBITMQ_VHOST
// (default /) and BROKER_NAMESPACE (default none) as the services have them. Each service's
// AMQP_URL then names its own user, e.g. amqp://feedback-api:…@rabbitmq:5672.
import { BROKER_SERVICES, applyBrokerLogins, brokerDefinitions } from '../packages/messaging/dist/index.js';

const variableOf = (service) => `${service.replace('-', '_').toUpperCase()}_AMQP_PASSWORD`;
const logins = BROKER_SERVICES.map((service) => {
  const password = process.env[variableOf(service)];
  if (!password) {
    console.error(`${variableOf(service)} is required: the password of ${service}'s broker login`);
    process.exit(64);
  }
  return { service, user: `feedback-${service}`, password };
});
const options = { namespace: process.env.BROKER_NAMESPACE ?? '', vhost: process.env.RABBITMQ_VHOST ?? '/' };
const command = process.argv[2];
if (command === 'apply') {
  await applyBrokerLogins(logins, options);
  console.log(`broker logins set: ${logins.map((login) => login.user).join(', ')}`);
} else if (command === 'definitions') {
  console.log(JSON.stringify(brokerDefinitions(logins, options), null, 2));
} else {
  console.error('usage: node scripts/broker-logins.mjs apply|definitions');
  process.exit(64);
}
