CREATE TABLE `next_steps` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`centre_id` text,
	`expert_id` text,
	`position` integer NOT NULL,
	`kind` text NOT NULL,
	`loincs` text,
	`specialty` text,
	`facility` text,
	`urgency` text,
	`reason` text,
	`in_days` integer NOT NULL,
	`due_on` text NOT NULL,
	`state` text DEFAULT 'open' NOT NULL,
	`state_reason` text,
	`state_at` integer,
	`state_by` text,
	`attached_report_id` text,
	`referral_code` text,
	`referral_seen_at` integer,
	`referral_note` text,
	`remind_off` integer DEFAULT false NOT NULL,
	`snoozed_until` text,
	`reminders_sent` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`centre_id`) REFERENCES `centres`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`expert_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`state_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`attached_report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `next_steps_report_idx` ON `next_steps` (`report_id`,`position`);--> statement-breakpoint
CREATE INDEX `next_steps_patient_idx` ON `next_steps` (`patient_id`,`due_on`,`id`);--> statement-breakpoint
CREATE INDEX `next_steps_centre_idx` ON `next_steps` (`centre_id`,`state`,`due_on`,`id`);--> statement-breakpoint
CREATE INDEX `next_steps_state_due_idx` ON `next_steps` (`state`,`due_on`,`id`);--> statement-breakpoint
CREATE INDEX `next_steps_expert_idx` ON `next_steps` (`expert_id`,`state`,`due_on`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `next_steps_referral_code_uq` ON `next_steps` (`referral_code`);--> statement-breakpoint
ALTER TABLE `patients` ADD `remind_by` text DEFAULT 'sms' NOT NULL;--> statement-breakpoint
ALTER TABLE `patients` ADD `remind_hour` integer DEFAULT 9 NOT NULL;