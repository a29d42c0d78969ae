CREATE TABLE `expert_profiles` (
	`user_id` text PRIMARY KEY NOT NULL,
	`registration_number` text DEFAULT '' NOT NULL,
	`registration_council` text DEFAULT '' NOT NULL,
	`years_of_practice` integer,
	`approved_by` text,
	`approved_at` integer,
	`rejected_at` integer,
	`rejection_reason` text,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`approved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `expert_specialties` (
	`user_id` text NOT NULL,
	`specialty` text NOT NULL,
	PRIMARY KEY(`user_id`, `specialty`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `expert_specialties_specialty_idx` ON `expert_specialties` (`specialty`,`user_id`);--> statement-breakpoint
CREATE TABLE `report_followups` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`question` text NOT NULL,
	`asked_at` integer NOT NULL,
	`answer` text,
	`answered_by` text,
	`answered_at` integer,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`answered_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `report_followups_report_idx` ON `report_followups` (`report_id`,`asked_at`,`id`);--> statement-breakpoint
ALTER TABLE `reports` ADD `priority` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `reports` ADD `urgent_reason` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `claimed_by` text REFERENCES users(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `reports` ADD `claimed_at` integer;--> statement-breakpoint
ALTER TABLE `reports` ADD `claim_expires_at` integer;--> statement-breakpoint
ALTER TABLE `reports` ADD `findings` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `recommendations` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `see_doctor_soon` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `reports` ADD `letter_code` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `followup_expert_id` text REFERENCES users(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `reports` ADD `overdue_notified_at` integer;--> statement-breakpoint
CREATE INDEX `reports_queue_idx` ON `reports` (`status`,`priority`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_queue_type_idx` ON `reports` (`status`,`report_type`,`priority`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_followup_expert_idx` ON `reports` (`followup_expert_id`,`reviewed_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reports_letter_code_uq` ON `reports` (`letter_code`);