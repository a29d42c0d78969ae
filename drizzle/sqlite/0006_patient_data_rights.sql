CREATE TABLE `consent_records` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`purpose` text NOT NULL,
	`granted` integer NOT NULL,
	`text_version` text NOT NULL,
	`locale` text DEFAULT 'en' NOT NULL,
	`via` text DEFAULT 'settings' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `consent_records_user_idx` ON `consent_records` (`user_id`,`purpose`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `mfa_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mfa_challenges_token_uq` ON `mfa_challenges` (`token_hash`);--> statement-breakpoint
CREATE INDEX `mfa_challenges_expires_idx` ON `mfa_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `nominees` (
	`user_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`relationship` text DEFAULT '' NOT NULL,
	`contact` text NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `recovery_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`used_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `recovery_codes_user_idx` ON `recovery_codes` (`user_id`);--> statement-breakpoint
CREATE TABLE `rights_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`type` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`details` text DEFAULT '' NOT NULL,
	`due_at` integer,
	`cancel_token_hash` text,
	`response` text DEFAULT '' NOT NULL,
	`resolved_by` text,
	`resolved_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`resolved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `rights_requests_status_idx` ON `rights_requests` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `rights_requests_user_idx` ON `rights_requests` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `rights_requests_due_idx` ON `rights_requests` (`type`,`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `share_links` (
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
	FOREIGN KEY (`patient_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `share_links_token_uq` ON `share_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `share_links_patient_idx` ON `share_links` (`patient_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `share_links_report_idx` ON `share_links` (`report_id`);--> statement-breakpoint
CREATE TABLE `totp_factors` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret_enc` text NOT NULL,
	`confirmed_at` integer,
	`last_step` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
