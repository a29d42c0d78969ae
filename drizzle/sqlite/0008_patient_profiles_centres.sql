CREATE TABLE `centres` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`district` text DEFAULT '' NOT NULL,
	`state` text DEFAULT '' NOT NULL,
	`pin_code` text DEFAULT '' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `centres_name_idx` ON `centres` (`name`,`id`);--> statement-breakpoint
CREATE TABLE `health_workers` (
	`user_id` text PRIMARY KEY NOT NULL,
	`centre_id` text NOT NULL,
	`role` text NOT NULL,
	`worker_id` text DEFAULT '' NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`centre_id`) REFERENCES `centres`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `health_workers_centre_idx` ON `health_workers` (`centre_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `patient_consents` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`kind` text NOT NULL,
	`granted` integer DEFAULT true NOT NULL,
	`text_version` text NOT NULL,
	`locale` text DEFAULT 'en' NOT NULL,
	`method` text NOT NULL,
	`witness_name` text,
	`evidence_key` text,
	`recorded_by` text,
	`recorded_by_name` text DEFAULT '' NOT NULL,
	`centre_id` text,
	`relationship` text DEFAULT '' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`recorded_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`centre_id`) REFERENCES `centres`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `patient_consents_patient_idx` ON `patient_consents` (`patient_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `patient_consents_evidence_idx` ON `patient_consents` (`evidence_key`);--> statement-breakpoint
CREATE TABLE `patient_managers` (
	`patient_id` text NOT NULL,
	`manager_id` text NOT NULL,
	`relationship` text DEFAULT '' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`revoked_at` integer,
	PRIMARY KEY(`patient_id`, `manager_id`),
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`manager_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `patient_managers_manager_idx` ON `patient_managers` (`manager_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `patients` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text,
	`first_name` text NOT NULL,
	`last_name` text DEFAULT '' NOT NULL,
	`sex` text,
	`birth_year` integer,
	`birth_year_estimated` integer DEFAULT false NOT NULL,
	`locality` text DEFAULT '' NOT NULL,
	`locale` text DEFAULT 'en' NOT NULL,
	`phone` text,
	`phone_owner` text DEFAULT 'none' NOT NULL,
	`phone_relationship` text DEFAULT '' NOT NULL,
	`centre_id` text,
	`centre_access_revoked_at` integer,
	`registered_by` text,
	`short_id` text,
	`taken_over_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`centre_id`) REFERENCES `centres`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`registered_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
-- Every existing patient account becomes its own patient profile, under the same id (so the API's
-- patientId is unchanged); so does any other account that owns a report or a sharing link. Foreign keys
-- are off while migrations run (app/db/client.server.ts) and checked afterwards.
INSERT INTO `patients` (`id`, `account_id`, `first_name`, `last_name`, `locale`, `phone`, `phone_owner`, `created_at`, `updated_at`)
SELECT `id`, `id`, `first_name`, `last_name`, `locale`, `phone`, CASE WHEN `phone` IS NULL THEN 'none' ELSE 'self' END, `created_at`, `updated_at`
FROM `users`
WHERE `account_type` = 'Patient' OR `id` IN (SELECT `patient_id` FROM `reports`) OR `id` IN (SELECT `patient_id` FROM `share_links`);
--> statement-breakpoint
CREATE UNIQUE INDEX `patients_account_uq` ON `patients` (`account_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `patients_short_id_uq` ON `patients` (`short_id`);--> statement-breakpoint
CREATE INDEX `patients_centre_created_idx` ON `patients` (`centre_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `patients_phone_idx` ON `patients` (`phone`);--> statement-breakpoint
CREATE TABLE `__new_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`report_type` text NOT NULL,
	`description` text,
	`phone_number` text NOT NULL,
	`file_key` text NOT NULL,
	`file_name` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`consent_at` integer NOT NULL,
	`status` text DEFAULT 'Pending' NOT NULL,
	`review` text,
	`expert_id` text,
	`reviewed_at` integer,
	`priority` integer DEFAULT 1 NOT NULL,
	`urgent_reason` text,
	`claimed_by` text,
	`claimed_at` integer,
	`claim_expires_at` integer,
	`claim_renewals` integer DEFAULT 0 NOT NULL,
	`findings` text,
	`recommendations` text,
	`see_doctor_soon` integer DEFAULT false NOT NULL,
	`letter_code` text,
	`signer_first_name` text,
	`signer_last_name` text,
	`signer_registration_number` text,
	`signer_registration_council` text,
	`followup_expert_id` text,
	`overdue_notified_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`expert_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`claimed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`followup_expert_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_reports`("id", "patient_id", "report_type", "description", "phone_number", "file_key", "file_name", "mime_type", "size", "consent_at", "status", "review", "expert_id", "reviewed_at", "priority", "urgent_reason", "claimed_by", "claimed_at", "claim_expires_at", "claim_renewals", "findings", "recommendations", "see_doctor_soon", "letter_code", "signer_first_name", "signer_last_name", "signer_registration_number", "signer_registration_council", "followup_expert_id", "overdue_notified_at", "created_at", "updated_at") SELECT "id", "patient_id", "report_type", "description", "phone_number", "file_key", "file_name", "mime_type", "size", "consent_at", "status", "review", "expert_id", "reviewed_at", "priority", "urgent_reason", "claimed_by", "claimed_at", "claim_expires_at", "claim_renewals", "findings", "recommendations", "see_doctor_soon", "letter_code", "signer_first_name", "signer_last_name", "signer_registration_number", "signer_registration_council", "followup_expert_id", "overdue_notified_at", "created_at", "updated_at" FROM `reports`;--> statement-breakpoint
DROP TABLE `reports`;--> statement-breakpoint
ALTER TABLE `__new_reports` RENAME TO `reports`;--> statement-breakpoint
CREATE INDEX `reports_patient_created_idx` ON `reports` (`patient_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status_created_idx` ON `reports` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status_type_created_idx` ON `reports` (`status`,`report_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_expert_reviewed_idx` ON `reports` (`expert_id`,`reviewed_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status_reviewed_idx` ON `reports` (`status`,`reviewed_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_file_key_idx` ON `reports` (`file_key`);--> statement-breakpoint
CREATE INDEX `reports_queue_idx` ON `reports` (`status`,`priority`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_queue_type_idx` ON `reports` (`status`,`report_type`,`priority`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_followup_expert_idx` ON `reports` (`followup_expert_id`,`reviewed_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reports_letter_code_uq` ON `reports` (`letter_code`);--> statement-breakpoint
CREATE INDEX `reports_claimed_by_idx` ON `reports` (`claimed_by`,`claim_expires_at`);--> statement-breakpoint
CREATE TABLE `__new_share_links` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`report_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`label` text DEFAULT '' NOT NULL,
	`include_file` integer DEFAULT true NOT NULL,
	`include_opinion` integer DEFAULT true NOT NULL,
	`include_letter` integer DEFAULT true NOT NULL,
	`passcode_hash` text,
	`passcode_failures` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`max_opens` integer,
	`opens` integer DEFAULT 0 NOT NULL,
	`last_opened_at` integer,
	`revoked_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_share_links`("id", "token_hash", "report_id", "patient_id", "label", "include_file", "include_opinion", "include_letter", "passcode_hash", "passcode_failures", "expires_at", "max_opens", "opens", "last_opened_at", "revoked_at", "created_at") SELECT "id", "token_hash", "report_id", "patient_id", "label", "include_file", "include_opinion", "include_letter", "passcode_hash", "passcode_failures", "expires_at", "max_opens", "opens", "last_opened_at", "revoked_at", "created_at" FROM `share_links`;--> statement-breakpoint
DROP TABLE `share_links`;--> statement-breakpoint
ALTER TABLE `__new_share_links` RENAME TO `share_links`;--> statement-breakpoint
CREATE UNIQUE INDEX `share_links_token_uq` ON `share_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `share_links_patient_idx` ON `share_links` (`patient_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `share_links_report_idx` ON `share_links` (`report_id`);