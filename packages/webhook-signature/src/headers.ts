/** The signature of a delivery: `t=<unix seconds>,v1=<64 lowercase hex>`. */
export const SIGNATURE_HEADER = 'X-Service-Signature';
/** The event name, also in the body's `event`. */
export const EVENT_HEADER = 'X-Service-Event';
/** The delivery id, equal to the body's `id`: the same on every retry and redelivery. */
export const DELIVERY_HEADER = 'X-Service-Delivery';
/** How far the sender's timestamp may be from the receiver's clock, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
