CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`payload` text NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`run_at` integer NOT NULL,
	`holder` text,
	`leased_until` integer,
	`last_error` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_kind_key_uq` ON `jobs` (`kind`,`key`);--> statement-breakpoint
CREATE INDEX `jobs_kind_state_idx` ON `jobs` (`kind`,`state`,`run_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_state_lease_idx` ON `jobs` (`state`,`leased_until`);--> statement-breakpoint
-- Decision 0113: messages not yet settled become the runner's jobs, with the attempts already made.
INSERT INTO `jobs` (`id`, `kind`, `key`, `payload`, `state`, `attempts`, `run_at`, `last_error`, `created_at`)
SELECT 'sms-' || `id`, 'sms', `id`, json_object('id', `id`), 'queued', `attempts`, `next_attempt_at`, `last_error`, `created_at`
FROM `sms_messages` WHERE `status` IN ('queued', 'sending');--> statement-breakpoint
INSERT INTO `jobs` (`id`, `kind`, `key`, `payload`, `state`, `attempts`, `run_at`, `last_error`, `created_at`)
SELECT 'mail-' || `id`, 'mail', `id`, json_object('id', `id`), 'queued', `attempts`, `next_attempt_at`, `last_error`, `created_at`
FROM `mail_messages` WHERE `status` IN ('queued', 'sending');
