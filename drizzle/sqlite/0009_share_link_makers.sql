-- Who made a sharing link: a family member's links end when the person revokes their access
-- (decision 0030). Links made before this were made by the person themself.
ALTER TABLE `share_links` ADD `created_by` text REFERENCES users(id) ON DELETE set null;--> statement-breakpoint
UPDATE `share_links` SET `created_by` = `patient_id` WHERE `patient_id` IN (SELECT `account_id` FROM `patients` WHERE `account_id` IS NOT NULL);