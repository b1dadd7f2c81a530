-- A retry of an event its endpoint no longer selects is not sent: the delivery is cancelled.
ALTER TYPE "DeliveryStatus" ADD VALUE IF NOT EXISTS 'cancelled';
