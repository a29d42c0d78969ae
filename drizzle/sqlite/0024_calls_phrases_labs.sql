CREATE TABLE `lab_reads` (
	`report_id` text PRIMARY KEY NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`source` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`locked_until` integer,
	`last_error` text,
	`duration_ms` integer,
	`finished_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `lab_reads_due_idx` ON `lab_reads` (`status`,`next_attempt_at`,`report_id`);--> statement-breakpoint
CREATE TABLE `lab_values` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`loinc` text NOT NULL,
	`printed_name` text DEFAULT '' NOT NULL,
	`value` real NOT NULL,
	`unit` text NOT NULL,
	`printed_value` text DEFAULT '' NOT NULL,
	`printed_unit` text,
	`range_text` text,
	`range_low` real,
	`range_high` real,
	`flag` text,
	`page` integer,
	`box` text,
	`confidence` real,
	`status` text DEFAULT 'read' NOT NULL,
	`checked_by` text,
	`checked_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`checked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `lab_values_report_idx` ON `lab_values` (`report_id`,`page`,`id`);--> statement-breakpoint
CREATE INDEX `lab_values_loinc_idx` ON `lab_values` (`loinc`,`report_id`);--> statement-breakpoint
CREATE TABLE `phone_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`direction` text NOT NULL,
	`number` text NOT NULL,
	`patient_id` text,
	`purpose` text NOT NULL,
	`locale` text DEFAULT 'en' NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`outcome` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`locked_until` integer,
	`last_error` text,
	`provider_ref` text,
	`ivr_state` text,
	`answered_at` integer,
	`verified_at` integer,
	`ended_at` integer,
	`duration_ms` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `phone_calls_due_idx` ON `phone_calls` (`status`,`next_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `phone_calls_created_idx` ON `phone_calls` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `phone_calls_number_idx` ON `phone_calls` (`number`,`created_at`);--> statement-breakpoint
CREATE INDEX `phone_calls_patient_idx` ON `phone_calls` (`patient_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `phone_calls_provider_ref_uq` ON `phone_calls` (`provider_ref`);--> statement-breakpoint
CREATE TABLE `phrases` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`en` text NOT NULL,
	`hi` text NOT NULL,
	`bn` text NOT NULL,
	`ta` text NOT NULL,
	`reviewed_by` text NOT NULL,
	`created_by` text,
	`retired_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `phrases_created_idx` ON `phrases` (`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `patients` ADD `notice_by` text DEFAULT 'sms' NOT NULL;--> statement-breakpoint
ALTER TABLE `patients` ADD `call_window` text DEFAULT 'morning' NOT NULL;--> statement-breakpoint
ALTER TABLE `reports` ADD `phrase_ids` text;--> statement-breakpoint
ALTER TABLE `voice_notes` ADD `phone_file_key` text;--> statement-breakpoint
ALTER TABLE `voice_notes` ADD `phone_duration_ms` integer;